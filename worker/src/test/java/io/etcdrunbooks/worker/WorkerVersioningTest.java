package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.temporal.common.VersioningBehavior;
import io.temporal.common.WorkerDeploymentVersion;
import io.temporal.worker.WorkerDeploymentOptions;
import org.junit.jupiter.api.Test;

/**
 * temporal.worker-versioning.*: off unless turned on, a release's version as the default build id,
 * and every value Temporal would refuse (or that names no single build) refused at start, naming
 * the setting. On a real server: {@link RealTemporalVisibilityTest}.
 */
class WorkerVersioningTest {

  @Test
  void offByDefaultTheWorkerIsUnversioned() {
    assertThat(WorkerVersioning.options(WorkerVersioningConfig.OFF, "1.0.0")).isEmpty();
    assertThat(RunbookWorker.options(true).getDeploymentOptions()).isNull();
  }

  @Test
  void onItNamesTheDeploymentVersionWithAutoUpgradeByDefault() {
    WorkerDeploymentOptions options =
        WorkerVersioning.options(on("etcd-runbooks", "2026.11.27-7cb7e9a", "auto-upgrade"), null)
            .orElseThrow();
    assertThat(options.isUsingVersioning()).isTrue();
    assertThat(options.getVersion())
        .isEqualTo(new WorkerDeploymentVersion("etcd-runbooks", "2026.11.27-7cb7e9a"));
    assertThat(options.getDefaultVersioningBehavior()).isEqualTo(VersioningBehavior.AUTO_UPGRADE);
    assertThat(
            WorkerVersioning.options(on("etcd-runbooks", "b1", " PINNED "), null)
                .orElseThrow()
                .getDefaultVersioningBehavior())
        .isEqualTo(VersioningBehavior.PINNED);
    assertThat(
            RunbookWorker.options(
                    true, WorkerVersioning.options(on("etcd-runbooks", "b1", "pinned"), null))
                .getDeploymentOptions()
                .isUsingVersioning())
        .isTrue();
  }

  @Test
  void withoutABuildIdAReleaseUsesItsVersionAndASnapshotIsRefused() {
    assertThat(
            WorkerVersioning.options(on("etcd-runbooks", "", "auto-upgrade"), "1.4.0")
                .orElseThrow()
                .getVersion()
                .getBuildId())
        .isEqualTo("1.4.0");
    assertThatThrownBy(
            () ->
                WorkerVersioning.options(
                    on("etcd-runbooks", null, "auto-upgrade"), "0.1.0-SNAPSHOT"))
        .hasMessageContaining(
            "temporal.worker-versioning.build-id (TEMPORAL_WORKER_BUILD_ID) is not set")
        .hasMessageContaining("0.1.0-SNAPSHOT");
    assertThatThrownBy(() -> WorkerVersioning.options(on("etcd-runbooks", " ", "pinned"), null))
        .hasMessageContaining("not run from the product jar");
  }

  @Test
  void valuesTemporalWouldRefuseStopTheStart() {
    assertThatThrownBy(
            () ->
                WorkerVersioning.options(
                    new WorkerVersioningConfig("yes", "etcd-runbooks", "b1", "pinned"), null))
        .hasMessage(
            "temporal.worker-versioning.enabled (TEMPORAL_WORKER_VERSIONING) must be true or"
                + " false, got 'yes'");
    assertThatThrownBy(() -> WorkerVersioning.options(on("etcd.runbooks", "b1", "pinned"), null))
        .hasMessageContaining("deployment-name (TEMPORAL_WORKER_DEPLOYMENT_NAME) 'etcd.runbooks'")
        .hasMessageContaining("contains '.' or ':'");
    assertThatThrownBy(() -> WorkerVersioning.options(on("__x", "b1", "pinned"), null))
        .hasMessageContaining("starts with '__'");
    assertThatThrownBy(() -> WorkerVersioning.options(on(" ", "b1", "pinned"), null))
        .hasMessageContaining("is empty");
    assertThatThrownBy(
            () -> WorkerVersioning.options(on("etcd-runbooks", "x".repeat(256), "pinned"), null))
        .hasMessageContaining("is 256 bytes long: Temporal takes at most 255");
    assertThatThrownBy(() -> WorkerVersioning.options(on("etcd-runbooks", "b1", "sticky"), null))
        .hasMessage(
            "temporal.worker-versioning.default-behavior (TEMPORAL_WORKER_VERSIONING_BEHAVIOR)"
                + " must be auto-upgrade or pinned, got 'sticky'");
  }

  private static WorkerVersioningConfig on(String name, String buildId, String behavior) {
    return new WorkerVersioningConfig("true", name, buildId, behavior);
  }
}
