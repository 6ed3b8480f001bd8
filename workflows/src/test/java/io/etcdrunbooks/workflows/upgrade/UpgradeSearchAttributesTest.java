package io.etcdrunbooks.workflows.upgrade;

import static io.etcdrunbooks.workflows.testing.RunbookWaits.awaitPhase;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.common.RunbookSearchAttributes;
import io.etcdrunbooks.workflows.testing.FakeCluster;
import io.etcdrunbooks.workflows.testing.FakeControlPlane;
import io.etcdrunbooks.workflows.testing.RecordingActivities;
import io.etcdrunbooks.workflows.testing.TestSearchAttributes;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.SearchAttributes;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An upgrade started with the runbook search attributes keeps EtcdRunbookPhase at its phase; one
 * started without them (the Web UI, or the attributes disabled) gets none.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class UpgradeSearchAttributesTest {

  private static final String QUEUE = "upgrade-search-attributes";

  private final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();

  @BeforeEach
  void start() {
    TestSearchAttributes.registerOn(env);
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(UpgradeClusterWorkflowImpl.class);
    new RecordingActivities(
            new FakeCluster(
                "c", List.of("m1", "m2", "m3"), "3.4.23", "m3", List.of("3.4.23", "3.5.16")),
            new FakeControlPlane())
        .registerOn(worker);
    env.start();
  }

  @AfterEach
  void close() {
    env.close();
  }

  @Test
  void anUpgradeStartedWithTheAttributesShowsItsPhaseWhileItWaitsAndDoneAtItsEnd() {
    UpgradeClusterWorkflow upgrade =
        stub(RunbookSearchAttributes.atStart(UpgradeClusterWorkflow.TYPE, "c", "on-call", ""));
    WorkflowClient.start(
        upgrade::upgrade,
        UpgradeRequest.to(
            "c", "3.5.16", RunbookOptions.defaults().withApproval().withMemberTimeoutSeconds(60)));
    awaitPhase(env, upgrade, Phase.AWAITING_APPROVAL);
    assertThat(attributes(upgrade).get(RunbookSearchAttributes.PHASE))
        .isEqualTo("AWAITING_APPROVAL");

    upgrade.approve("on-call");
    WorkflowStub.fromTyped(upgrade).getResult(UpgradeResult.class);

    SearchAttributes ended = attributes(upgrade);
    assertThat(ended.get(RunbookSearchAttributes.PHASE)).isEqualTo("DONE");
    assertThat(ended.get(RunbookSearchAttributes.CLUSTER)).isEqualTo("c");
    assertThat(ended.get(RunbookSearchAttributes.RUNBOOK)).isEqualTo(UpgradeClusterWorkflow.TYPE);
    assertThat(ended.get(RunbookSearchAttributes.STARTED_BY)).isEqualTo("on-call");
    assertThat(ended.containsKey(RunbookSearchAttributes.FLEET)).isFalse();
  }

  @Test
  void anUpgradeStartedWithoutTheAttributesUpsertsNone() {
    UpgradeClusterWorkflow upgrade = stub(null);
    upgrade.upgrade(
        UpgradeRequest.to("c", "3.5.16", RunbookOptions.defaults().withMemberTimeoutSeconds(60)));
    SearchAttributes ended = attributes(upgrade);
    RunbookSearchAttributes.ALL.forEach(key -> assertThat(ended.containsKey(key)).isFalse());
  }

  private UpgradeClusterWorkflow stub(SearchAttributes attributes) {
    WorkflowOptions.Builder options =
        WorkflowOptions.newBuilder().setWorkflowId(RunbookIds.changing("c")).setTaskQueue(QUEUE);
    if (attributes != null) options.setTypedSearchAttributes(attributes);
    return env.getWorkflowClient().newWorkflowStub(UpgradeClusterWorkflow.class, options.build());
  }

  private static SearchAttributes attributes(UpgradeClusterWorkflow upgrade) {
    return WorkflowStub.fromTyped(upgrade).describe().getTypedSearchAttributes();
  }
}
