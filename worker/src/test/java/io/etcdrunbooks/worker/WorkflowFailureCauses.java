package io.etcdrunbooks.worker;

import io.etcdrunbooks.workflows.common.Failures;
import io.temporal.client.WorkflowFailedException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;

/**
 * A runbook that fails a test is reported with its own words: Temporal's exception says only that
 * the workflow failed, and CI's summary line shows nothing else. Registered for every test through
 * the service loader.
 */
public final class WorkflowFailureCauses implements TestExecutionExceptionHandler {

  @Override
  public void handleTestExecutionException(ExtensionContext context, Throwable thrown)
      throws Throwable {
    if (thrown instanceof WorkflowFailedException failed) {
      throw new AssertionError(
          failed.getExecution().getWorkflowId() + " failed: " + Failures.rootMessage(failed),
          failed);
    }
    throw thrown;
  }
}
