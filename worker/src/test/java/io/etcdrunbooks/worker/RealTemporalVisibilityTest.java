package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.api.testing.TestTokens;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.TemporalDevServer;
import io.etcdrunbooks.workflows.common.RunbookSearchAttributes;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import io.temporal.api.enums.v1.VersioningBehavior;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.workflow.v1.WorkflowExecutionVersioningInfo;
import io.temporal.client.WorkflowExecutionMetadata;
import io.temporal.common.SearchAttributes;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * On the real Temporal server ({@code temporal server start-dev}, whose visibility store answers
 * list queries), a runbook started through the API and one started with the Temporal CLI, as an
 * operator would from a shell, both carry the runbooks' search attributes: Temporal's list query by
 * cluster finds both, and so does the API's list of the cluster's runbooks. The worker has Worker
 * Versioning on (docs/upgrading-the-worker.md): both runs come once its version is made current
 * with the CLI's set-current-version, and run in that Worker Deployment Version.
 */
@RealEtcd
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RealTemporalVisibilityTest {

  private static final String TASK_QUEUE = "etcd-runbooks-visibility";

  @TempDir Path dir;

  @Test
  void
      runsStartedThroughTheApiAndWithTheCliAreFoundByTheirSearchAttributesAndRunInTheCurrentVersion()
          throws Exception {
    Instant began = Instant.now();
    String buildId = "build-" + began.toEpochMilli();
    try (TemporalDevServer temporal = TemporalDevServer.start(dir.resolve("temporal"));
        ApiSandbox api =
            ApiSandbox.start(
                dir,
                "visibility",
                "3.5.16",
                Map.of(
                    "temporal.address",
                    temporal.address(),
                    "runbooks.task-queue",
                    TASK_QUEUE,
                    "runbooks.search-attributes.enabled",
                    true,
                    "temporal.worker-versioning.enabled",
                    "true",
                    "temporal.worker-versioning.build-id",
                    buildId),
                TestTokens.OPERATOR)) {
      // a versioned worker gets no run until its version is current: the operator's cutover
      setCurrentOncePolled(new TemporalCli(temporal.address()), buildId);
      System.out.printf(
          "RealTemporalVisibilityTest: version %s current %.1f s after the start (server, sandbox"
              + " and worker included)%n",
          buildId, Duration.between(began, Instant.now()).toMillis() / 1000.0);
      ApiSandbox.Answer started =
          api.post(
              "/api/v1/clusters/sandbox/upgrade",
              "{\"targetVersion\":\"3.5.30\",\"dryRun\":true}",
              TestTokens.OPERATOR);
      assertThat(started.status()).as(started.text()).isEqualTo(202);
      String fromApi = started.body().path("workflowId").asText();

      String fromCli = "cli-dry-run-sandbox";
      Process cli =
          new ProcessBuilder(
                  TemporalDevServer.binary().toString(),
                  "workflow",
                  "start",
                  "--address",
                  temporal.address(),
                  "--task-queue",
                  TASK_QUEUE,
                  "--type",
                  "UpgradeCluster",
                  "--workflow-id",
                  fromCli,
                  "--input",
                  "{\"cluster\":\"sandbox\",\"targetVersion\":\"3.5.30\",\"dryRun\":true}")
              .redirectErrorStream(true)
              .start();
      assertThat(cli.waitFor(30, TimeUnit.SECONDS)).as("temporal workflow start ended").isTrue();
      assertThat(cli.exitValue())
          .as(new String(cli.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
          .isZero();

      for (String id : List.of(fromApi, fromCli)) {
        UpgradeResult result =
            api.client
                .newUntypedWorkflowStub(id)
                .getResult(90, TimeUnit.SECONDS, UpgradeResult.class);
        assertThat(result.dryRun()).as("%s is a dry run", id).isTrue();
        assertThat(result.memberVersions()).as("%s changed nothing", id).containsValue("3.5.16");
        assertRanIn(api, id, buildId);
      }

      Map<String, SearchAttributes> found = listedUntilDone("EtcdCluster = 'sandbox'", api, 2);
      assertThat(found).containsOnlyKeys(fromApi, fromCli);
      assertThat(found.get(fromCli).get(RunbookSearchAttributes.STARTED_BY))
          .isEqualTo(RunbookSearchAttributes.STARTED_OUTSIDE_THE_API);
      assertThat(found.get(fromApi).get(RunbookSearchAttributes.STARTED_BY))
          .isEqualTo(TestTokens.OPERATOR.name());
      for (SearchAttributes attributes : found.values()) {
        assertThat(attributes.get(RunbookSearchAttributes.RUNBOOK)).isEqualTo("UpgradeCluster");
        assertThat(attributes.get(RunbookSearchAttributes.PHASE)).isEqualTo("DONE");
      }

      ApiSandbox.Answer listed = api.get("/api/v1/clusters/sandbox/runbooks", TestTokens.OPERATOR);
      assertThat(listed.status()).as(listed.text()).isEqualTo(200);
      assertThat(listed.text()).contains(fromApi, fromCli);
    }
  }

  /** {@code id} ran in the worker's Worker Deployment Version, auto-upgrading (the default). */
  private static void assertRanIn(ApiSandbox api, String id, String buildId) {
    WorkflowExecutionVersioningInfo versioning =
        api.client
            .newUntypedWorkflowStub(id)
            .describe()
            .getRawDescription()
            .getWorkflowExecutionInfo()
            .getVersioningInfo();
    assertThat(versioning.getDeploymentVersion().getDeploymentName())
        .as("%s's deployment", id)
        .isEqualTo("etcd-runbooks");
    assertThat(versioning.getDeploymentVersion().getBuildId())
        .as("%s's build id", id)
        .isEqualTo(buildId);
    assertThat(versioning.getBehavior())
        .as("%s's versioning behavior", id)
        .isEqualTo(VersioningBehavior.VERSIONING_BEHAVIOR_AUTO_UPGRADE);
  }

  /** {@code temporal worker deployment set-current-version}, until the version has a poller. */
  private static void setCurrentOncePolled(TemporalCli cli, String buildId) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    while (true) {
      try {
        cli.run(
            "temporal worker deployment set-current-version --deployment-name etcd-runbooks"
                + " --build-id "
                + buildId
                + " --yes");
        return;
      } catch (AssertionError notYet) {
        if (Instant.now().isAfter(deadline)) throw notYet;
      }
      TimeUnit.MILLISECONDS.sleep(500);
    }
  }

  /**
   * The runs a list query finds once {@code expected} of them are closed with phase DONE: the
   * visibility store follows the runs by a moment.
   */
  private static Map<String, SearchAttributes> listedUntilDone(
      String query, ApiSandbox api, int expected) throws InterruptedException {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    Map<String, SearchAttributes> found = Map.of();
    while (Instant.now().isBefore(deadline)) {
      found =
          api.client
              .listExecutions(query)
              .filter(
                  run ->
                      run.getStatus()
                          == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED)
              .collect(
                  Collectors.toMap(
                      run -> run.getExecution().getWorkflowId(),
                      WorkflowExecutionMetadata::getTypedSearchAttributes));
      if (found.size() >= expected
          && found.values().stream()
              .allMatch(a -> "DONE".equals(a.get(RunbookSearchAttributes.PHASE)))) {
        return found;
      }
      TimeUnit.MILLISECONDS.sleep(200);
    }
    return found;
  }
}
