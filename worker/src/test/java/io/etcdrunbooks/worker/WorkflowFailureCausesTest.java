package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.RetryState;
import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ApplicationFailure;
import org.junit.jupiter.api.Test;

class WorkflowFailureCausesTest {

  private final WorkflowFailureCauses handler = new WorkflowFailureCauses();

  @Test
  void aFailedRunbookIsReportedWithItsRootMessage() {
    WorkflowFailedException failed =
        new WorkflowFailedException(
            WorkflowExecution.newBuilder().setWorkflowId("change-sandbox").build(),
            "ReplaceMember",
            EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED,
            129,
            RetryState.RETRY_STATE_UNSPECIFIED,
            ApplicationFailure.newNonRetryableFailure(
                "the new member m3-r1 could not join", "JoinFailed"));

    Throwable reported = catchThrowable(() -> handler.handleTestExecutionException(null, failed));

    assertThat(reported)
        .isInstanceOf(AssertionError.class)
        .hasCause(failed)
        .hasMessage("change-sandbox failed: the new member m3-r1 could not join");
  }

  @Test
  void otherFailuresPassThroughUnchanged() {
    IllegalStateException other = new IllegalStateException("boom");
    assertThat(catchThrowable(() -> handler.handleTestExecutionException(null, other)))
        .isSameAs(other);
  }
}
