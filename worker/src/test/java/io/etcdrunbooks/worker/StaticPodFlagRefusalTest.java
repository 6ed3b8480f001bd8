package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.temporal.client.WorkflowFailedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 3.4.23 static-pod member whose manifest passes {@code --debug}, which etcd 3.5 refuses ("flag
 * provided but not defined"): the upgrade to 3.5.16 is refused before any member stops, naming the
 * member and the flag, instead of failing on that member mid-upgrade.
 */
@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class StaticPodFlagRefusalTest {

  @TempDir Path dir;

  @Test
  void aMemberStartedWithAFlag3_5RemovedIsNamedBeforeAnyMemberStops() throws Exception {
    try (SandboxRunbooks runbooks =
        SandboxRunbooks.start(dir, "3.4.23", Map.of(), ServiceSpec.STATIC_POD)) {
      Path manifest = runbooks.sandbox.manifestPath("m2");
      long before = runbooks.sandbox.pidOf("m2");
      Files.writeString(
          manifest,
          Files.readString(manifest).replace("    - etcd\n", "    - etcd\n    - --debug\n"));
      awaitRestartedWithDebug(runbooks, before);
      awaitHealthy(runbooks);
      Map<String, Long> pidsBefore = UpgradeClusterTest.pids(runbooks);

      assertThatThrownBy(() -> runbooks.upgradeStub().upgrade(runbooks.request("3.5.16")))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                assertThat(Failures.rootType(e)).isEqualTo(FailureType.PreflightRefused.name());
                assertThat(Failures.rootMessage(e))
                    .contains(
                        "refused, nothing was touched",
                        "member m2 runs with --debug, which etcd 3.5 no longer accepts",
                        "use --log-level=debug");
              });
      assertThat(UpgradeClusterTest.pids(runbooks)).isEqualTo(pidsBefore);
      runbooks.state().members().forEach(m -> assertThat(m.serverVersion()).isEqualTo("3.4.23"));
    }
  }

  /** The kubelet stand-in restarts etcd when the manifest's command changes. */
  private static void awaitRestartedWithDebug(SandboxRunbooks runbooks, long before)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      long pid = runbooks.sandbox.pidOf("m2");
      if (pid > 0 && pid != before) {
        Path cmdline = Path.of("/proc", String.valueOf(pid), "cmdline");
        if (Files.exists(cmdline) && Files.readString(cmdline).contains("--debug")) return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("m2 was not restarted with --debug within 30 s");
  }

  private static void awaitHealthy(SandboxRunbooks runbooks) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      var state = runbooks.state();
      if (!state.leaderName().isEmpty() && state.members().stream().allMatch(m -> m.healthy()))
        return;
      Thread.sleep(200);
    }
    throw new AssertionError("the cluster was not healthy again within 30 s");
  }
}
