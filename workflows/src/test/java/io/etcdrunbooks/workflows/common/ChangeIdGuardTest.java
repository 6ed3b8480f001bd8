package io.etcdrunbooks.workflows.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.workflows.recover.RecoverQuorumRequest;
import io.etcdrunbooks.workflows.recover.RecoverQuorumWorkflowImpl;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberRequest;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberWorkflowImpl;
import io.etcdrunbooks.workflows.restore.RestoreClusterWorkflow;
import io.etcdrunbooks.workflows.restore.RestoreClusterWorkflowImpl;
import io.etcdrunbooks.workflows.restore.RestoreRequest;
import io.etcdrunbooks.workflows.rollback.RollbackClusterWorkflowImpl;
import io.etcdrunbooks.workflows.rollback.RollbackRequest;
import io.etcdrunbooks.workflows.scale.ScaleClusterRequest;
import io.etcdrunbooks.workflows.scale.ScaleClusterWorkflowImpl;
import io.etcdrunbooks.workflows.testing.RecordingActivities;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflowImpl;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.ChildWorkflowFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Workflow;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One change per cluster holds whoever starts the runbook: a changing runbook started under any id
 * but its cluster's change id (as the Temporal Web UI or CLI allow) refuses before its first
 * activity; a dry run may use any id, and a rollback's restore runs as a child of the change id.
 * Every activity is a recording stand-in that answers nothing.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class ChangeIdGuardTest {

  private static final String QUEUE = "change-id-guard";
  private static final String CLUSTER = "c";

  /** The runbooks that change a cluster, each with the request it is started with. */
  enum Changing {
    UPGRADE(
        "UpgradeCluster",
        dryRun ->
            UpgradeRequest.to(
                CLUSTER,
                "3.5.16",
                RunbookOptions.defaults().withDryRun(dryRun).withMemberTimeoutSeconds(60))),
    ROLLBACK(
        "RollbackCluster",
        dryRun ->
            RollbackRequest.to(
                CLUSTER,
                "3.4.23",
                RunbookOptions.defaults().withDryRun(dryRun).withMemberTimeoutSeconds(60))),
    RESTORE(
        "RestoreCluster",
        dryRun ->
            RestoreRequest.of(CLUSTER, "latest", RunbookOptions.defaults().withDryRun(dryRun))
                .acknowledgingDataLoss()
                .withEtcdVersion("")),
    REPLACE_MEMBER(
        "ReplaceMember",
        dryRun ->
            ReplaceMemberRequest.of(
                CLUSTER, "m2", null, RunbookOptions.defaults().withDryRun(dryRun), "test")),
    RECOVER_QUORUM(
        "RecoverQuorum",
        dryRun ->
            RecoverQuorumRequest.of(CLUSTER, RunbookOptions.defaults().withDryRun(dryRun))
                .acknowledgingDataLoss()),
    SCALE(
        "ScaleCluster",
        dryRun ->
            ScaleClusterRequest.shrinking(
                CLUSTER, 3, RunbookOptions.defaults().withDryRun(dryRun)));

    final String type;
    final Function<Boolean, Object> request;

    Changing(String type, Function<Boolean, Object> request) {
      this.type = type;
      this.request = request;
    }
  }

  @WorkflowInterface
  public interface RestoreParent {
    /**
     * Starts a restore as a child under childId; returns the type of its failure, or "completed".
     */
    @WorkflowMethod
    String restoreAsChild(String childId);
  }

  public static class RestoreParentImpl implements RestoreParent {
    @Override
    public String restoreAsChild(String childId) {
      RestoreClusterWorkflow child =
          Workflow.newChildWorkflowStub(
              RestoreClusterWorkflow.class,
              ChildWorkflowOptions.newBuilder().setWorkflowId(childId).build());
      try {
        child.restore(
            RestoreRequest.of(CLUSTER, "latest", RunbookOptions.defaults())
                .acknowledgingDataLoss()
                .withEtcdVersion(""));
        return "completed";
      } catch (ChildWorkflowFailure e) {
        return Failures.rootType(e);
      }
    }
  }

  private final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();
  private final RecordingActivities activities = new RecordingActivities();

  @BeforeEach
  void start() {
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(
        UpgradeClusterWorkflowImpl.class,
        RollbackClusterWorkflowImpl.class,
        RestoreClusterWorkflowImpl.class,
        ReplaceMemberWorkflowImpl.class,
        ScaleClusterWorkflowImpl.class,
        RecoverQuorumWorkflowImpl.class,
        RestoreParentImpl.class);
    activities.registerOn(worker);
    env.start();
  }

  @AfterEach
  void stop() {
    env.close();
  }

  @ParameterizedTest
  @EnumSource(Changing.class)
  void startedUnderAnotherIdItRefusesNamingTheIdToUseAndCallsNoActivity(Changing runbook) {
    String id = "ui-" + UUID.randomUUID();

    Throwable failure = failure(runbook, id, false);

    assertThat(Failures.rootType(failure)).isEqualTo(FailureType.WrongWorkflowId.name());
    assertThat(Failures.rootMessage(failure))
        .contains(
            runbook.type + " of cluster 'c' refused, nothing was touched",
            "workflow id '" + id + "'",
            "Start it again with workflow id change-c; dry runs may use any id");
    assertThat(activities.calls()).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Changing.class)
  void aDryRunUnderAnyIdIsNotRefused(Changing runbook) {
    Throwable failure = failure(runbook, "change-c-dry-run-" + UUID.randomUUID(), true);

    assertThat(Failures.rootType(failure)).isNotEqualTo(FailureType.WrongWorkflowId.name());
    assertThat(activities.calls()).as("it went on to its first activity").isNotEmpty();
  }

  @ParameterizedTest
  @EnumSource(Changing.class)
  void underItsClustersChangeIdItGoesOn(Changing runbook) {
    Throwable failure = failure(runbook, RunbookIds.changing(CLUSTER), false);

    assertThat(Failures.rootType(failure)).isNotEqualTo(FailureType.WrongWorkflowId.name());
    assertThat(activities.calls()).as("it went on to its first activity").isNotEmpty();
  }

  @Test
  void aRestoreRunsAsAChildOfTheChangeIdButNotOfAnyOtherWorkflow() {
    assertThat(
            parent(RunbookIds.changing(CLUSTER))
                .restoreAsChild(RunbookIds.changing(CLUSTER) + "-restore"))
        .isEqualTo(
            FailureType.RestoreRefused
                .name()); // its preflight found no inventory here: the guard let it through
    assertThat(activities.calls()).isNotEmpty();

    assertThat(
            parent("ui-" + UUID.randomUUID())
                .restoreAsChild(RunbookIds.changing(CLUSTER) + "-restore"))
        .isEqualTo(FailureType.WrongWorkflowId.name());
  }

  @Test
  void theRuleItself() {
    assertThat(RunbookIds.whyNotChangeId("UpgradeCluster", "prod", "change-prod", null)).isEmpty();
    assertThat(
            RunbookIds.whyNotChangeId(
                "RestoreCluster", "prod", "change-prod-restore", "change-prod"))
        .isEmpty();
    assertThat(RunbookIds.whyNotChangeId("RestoreCluster", "prod", "change-prod-restore", "x"))
        .get()
        .asString()
        .contains("workflow id 'change-prod-restore' (child of 'x')", "workflow id change-prod;");
    assertThat(RunbookIds.whyNotChangeId("UpgradeCluster", "prod", "change-prod-2", null))
        .isPresent();
    assertThat(RunbookIds.whyNotChangeId("UpgradeCluster", "", "anything", null))
        .as("left to the input checks")
        .isEmpty();
  }

  /** Runs the runbook to its end; every one of them fails here, since no activity answers. */
  private Throwable failure(Changing runbook, String workflowId, boolean dryRun) {
    WorkflowStub stub =
        env.getWorkflowClient()
            .newUntypedWorkflowStub(
                runbook.type,
                WorkflowOptions.newBuilder().setWorkflowId(workflowId).setTaskQueue(QUEUE).build());
    stub.start(runbook.request.apply(dryRun));
    Throwable[] failure = new Throwable[1];
    assertThatThrownBy(() -> stub.getResult(Object.class))
        .isInstanceOf(WorkflowFailedException.class)
        .satisfies(e -> failure[0] = e);
    return failure[0];
  }

  private RestoreParent parent(String workflowId) {
    return env.getWorkflowClient()
        .newWorkflowStub(
            RestoreParent.class,
            WorkflowOptions.newBuilder().setWorkflowId(workflowId).setTaskQueue(QUEUE).build());
  }
}
