package io.etcdrunbooks.workflows.common;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.recover.RecoverQuorumWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A waiting runbook's hint names who may approve it by the rule the API enforces ({@link
 * Approver}): an operator for most, an admin for RecoverQuorum, whose operator approval is refused.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class ApprovalHintTest {

  private static final String QUEUE = "approval-hint";

  @WorkflowInterface
  public interface Waiting extends Runbook {
    @WorkflowMethod
    void waitForApproval(String runbookType);
  }

  /** Stands for any runbook: its type decides the rule, the gate is the shared one. */
  static final class WaitingImpl extends RunbookWorkflow implements Waiting {
    WaitingImpl(String runbookType) {
      super(runbookType);
    }

    @Override
    public void waitForApproval(String runbookType) {
      awaitApproval("the first member", () -> false);
    }
  }

  private TestWorkflowEnvironment env;

  @BeforeEach
  void start() {
    env = TestWorkflowEnvironment.newInstance();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  @Test
  void recoverQuorumsHintNamesAnAdminNotAnOperator() throws InterruptedException {
    String hint = hintOf(RecoverQuorumWorkflow.TYPE);

    assertThat(hint).contains("/approve (an admin;").doesNotContain("operator");
    assertThat(Approver.forRunbook(RecoverQuorumWorkflow.TYPE)).isEqualTo(Approver.ADMIN);
  }

  @Test
  void anUpgradesHintNamesAnOperator() throws InterruptedException {
    assertThat(hintOf(UpgradeClusterWorkflow.TYPE)).contains("/approve (an operator)");
  }

  private String hintOf(String runbookType) throws InterruptedException {
    env.newWorker(QUEUE)
        .registerWorkflowImplementationFactory(Waiting.class, () -> new WaitingImpl(runbookType));
    env.start();
    WorkflowClient client = env.getWorkflowClient();
    Waiting run =
        client.newWorkflowStub(
            Waiting.class,
            WorkflowOptions.newBuilder().setTaskQueue(QUEUE).setWorkflowId("w").build());
    WorkflowClient.start(run::waitForApproval, runbookType);
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    while (run.progress().phase() != Phase.AWAITING_APPROVAL && Instant.now().isBefore(deadline)) {
      Thread.sleep(20);
    }
    return run.progress().message();
  }
}
