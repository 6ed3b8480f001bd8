package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.activities.HostActivities.RestartRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import io.temporal.client.WorkflowFailedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Members of 3.4.23 started with flags etcd 3.5 refuses ("flag provided but not defined") or
 * ignores: renamed ones are translated where they live (a static pod's manifest, a plain member's
 * environment file) and the upgrade to 3.5.30 succeeds; one without a translation refuses the
 * upgrade before any member stops, naming the member and the flag.
 */
@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class FlagTranslationTest {

  @TempDir Path dir;

  @Test
  void aStaticPodStartedWithDebugIsTranslatedInItsManifestAndUpgradedTo3530() throws Exception {
    try (SandboxRunbooks runbooks =
        SandboxRunbooks.start(dir, "3.4.23", Map.of(), ServiceSpec.STATIC_POD)) {
      Path manifest = runbooks.sandbox.manifestPath("m2");
      startWith(runbooks, "--debug");

      UpgradeResult result = runbooks.upgradeStub().upgrade(runbooks.request("3.5.30"));

      assertThat(result.memberVersions().values()).containsOnly("3.5.30");
      assertThat(Files.readString(manifest))
          .contains("    - --log-level=debug\n")
          .doesNotContain("--debug");
      assertThat(runbooks.sandbox.pidOf("m2")).isPositive();
      runbooks.state().members().forEach(m -> assertThat(m.healthy()).as(m.name()).isTrue());
    }
  }

  /**
   * kubeadm 1.33's etcd flags on 3.5.35 members: m2 switched to 3.6.16 and back by the activity
   * that upgrades, rolls back and compensates a member (its flags in a feature gate and a new name,
   * then back in 3.5's names, which 3.5.35 starts with); then all upgraded by UpgradeCluster to
   * 3.7.3 through 3.6.16, 3.7 refusing every --experimental-* flag.
   */
  @Test
  void aKubeadm133ManifestGoesTo3_6AndBackAndIsUpgradedTo3_7WithAFeatureGateAndTheNewName()
      throws Exception {
    // etcd's default --snapshot-count: the climb to 3.7 itself must give each member a raft
    // snapshot past the entries 3.5 wrote (3.7 cannot apply them), which 3.6 would take only
    // 10,000 entries later
    Map<String, String> kubeadm133 =
        Map.of(
            "ETCD_EXPERIMENTAL_INITIAL_CORRUPT_CHECK", "true",
            "ETCD_EXPERIMENTAL_WATCH_PROGRESS_NOTIFY_INTERVAL", "5s");
    try (SandboxRunbooks runbooks =
        SandboxRunbooks.start(
            dir,
            "3.5.35",
            Map.of("m1", kubeadm133, "m2", kubeadm133, "m3", kubeadm133),
            ServiceSpec.STATIC_POD)) {
      Path manifest = runbooks.sandbox.manifestPath("m2");
      String on35 = Files.readString(manifest);
      assertThat(on35)
          .contains(
              "- --experimental-initial-corrupt-check=true\n",
              "- --experimental-watch-progress-notify-interval=5s\n");

      runbooks.host().restartMember(new RestartRequest("sandbox", "m2", "3.6.16", 60));
      assertThat(Files.readString(manifest))
          .contains(
              "- --feature-gates=InitialCorruptCheck=true\n",
              "- --watch-progress-notify-interval=5s\n")
          .doesNotContain("--experimental-");
      assertThat(runbooks.host().memberFlags(new MemberRef("sandbox", "m2")).args())
          .contains("--feature-gates=InitialCorruptCheck=true");

      runbooks.host().restartMember(new RestartRequest("sandbox", "m2", "3.5.35", 60));
      assertThat(Files.readString(manifest)).isEqualTo(on35);
      awaitHealthy(runbooks);
      runbooks.state().members().forEach(m -> assertThat(m.serverVersion()).isEqualTo("3.5.35"));

      UpgradeResult result = runbooks.upgradeStub().upgrade(runbooks.request("3.7.3"));

      assertThat(result.memberVersions().values()).containsOnly("3.7.3");
      for (String member : List.of("m1", "m2", "m3")) {
        assertThat(Files.readString(runbooks.sandbox.manifestPath(member)))
            .as(member)
            .contains(
                "- --feature-gates=InitialCorruptCheck=true\n",
                "- --watch-progress-notify-interval=5s\n")
            .doesNotContain("--experimental-", "--snapshot-count");
        assertThat(runbooks.host().memberFlags(new MemberRef("sandbox", member)).args())
            .as(member)
            .contains(
                "--feature-gates=InitialCorruptCheck=true", "--watch-progress-notify-interval=5s")
            .noneMatch(arg -> arg.startsWith("--snapshot-count"));
      }
      runbooks.state().members().forEach(m -> assertThat(m.healthy()).as(m.name()).isTrue());
    }
  }

  @Test
  void plainMembersGetTheirEnvironmentFilesTranslatedAndRunWithTheNewNames() throws Exception {
    try (SandboxRunbooks runbooks =
        SandboxRunbooks.start(
            dir,
            "3.4.23",
            Map.of(
                "m1", Map.of("ETCD_DEBUG", "true"),
                "m3", Map.of("ETCD_LOG_OUTPUT", "stderr")))) {

      UpgradeResult result = runbooks.upgradeStub().upgrade(runbooks.request("3.5.30"));

      assertThat(result.memberVersions().values()).containsOnly("3.5.30");
      assertThat(envFile(runbooks, "m1"))
          .contains("ETCD_LOG_LEVEL=debug")
          .doesNotContain("ETCD_DEBUG");
      assertThat(envFile(runbooks, "m3"))
          .contains("ETCD_LOG_OUTPUTS=stderr")
          .doesNotContain("ETCD_LOG_OUTPUT=");
      assertThat(runbooks.host().memberFlags(new MemberRef("sandbox", "m1")).env())
          .containsEntry("ETCD_LOG_LEVEL", "debug");
    }
  }

  @Test
  void aFlagWithoutATranslationIsNamedBeforeAnyMemberStops() throws Exception {
    try (SandboxRunbooks runbooks =
        SandboxRunbooks.start(dir, "3.4.23", Map.of(), ServiceSpec.STATIC_POD)) {
      startWith(runbooks, "--log-package-levels=etcdserver=INFO");
      Map<String, Long> pidsBefore = runbooks.pids();

      assertThatThrownBy(() -> runbooks.upgradeStub().upgrade(runbooks.request("3.5.16")))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                assertThat(Failures.rootType(e)).isEqualTo(FailureType.PreflightRefused.name());
                assertThat(Failures.rootMessage(e))
                    .contains(
                        "refused, nothing was touched",
                        "member m2 runs with --log-package-levels, which etcd 3.5 no longer"
                            + " accepts (it would not start) and the runbook cannot translate");
              });
      assertThat(runbooks.pids()).isEqualTo(pidsBefore);
      runbooks.state().members().forEach(m -> assertThat(m.serverVersion()).isEqualTo("3.4.23"));
    }
  }

  /** m2's manifest gains the flag; kubelet's stand-in restarts it with it. */
  private static void startWith(SandboxRunbooks runbooks, String flag) throws Exception {
    Path manifest = runbooks.sandbox.manifestPath("m2");
    long before = runbooks.sandbox.pidOf("m2");
    Files.writeString(
        manifest,
        Files.readString(manifest).replace("    - etcd\n", "    - etcd\n    - " + flag + "\n"));
    awaitRestartedWith(runbooks, before, flag);
    awaitHealthy(runbooks);
  }

  private static String envFile(SandboxRunbooks runbooks, String member) throws Exception {
    return Files.readString(
        Path.of(runbooks.cluster().member(member).serviceDir()).resolve("etcd.env"));
  }

  /** The kubelet stand-in restarts etcd when the manifest's command changes. */
  private static void awaitRestartedWith(SandboxRunbooks runbooks, long before, String flag)
      throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (System.nanoTime() < deadline) {
      long pid = runbooks.sandbox.pidOf("m2");
      if (pid > 0 && pid != before) {
        Path cmdline = Path.of("/proc", String.valueOf(pid), "cmdline");
        if (Files.exists(cmdline) && Files.readString(cmdline).contains(flag)) return;
      }
      Thread.sleep(100);
    }
    throw new AssertionError("m2 was not restarted with " + flag + " within 30 s");
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
