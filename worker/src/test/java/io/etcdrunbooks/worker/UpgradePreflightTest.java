package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.temporal.client.WorkflowFailedException;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Each refusal leaves the cluster untouched: same processes, same versions, no backup taken. */
@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class UpgradePreflightTest {

  /** Removed by JUnit after the class: the sandbox's etcd binaries and data take hundreds of MB. */
  @TempDir static Path classDir;

  /** Small enough to fill in a second, so that a real NOSPACE alarm can be raised. */
  private static final String QUOTA_BYTES = String.valueOf(4 * 1024 * 1024);

  private SandboxRunbooks runbooks;
  private ClusterProbe probe;
  private Map<String, Long> pidsBefore;

  @BeforeAll
  void startSandbox() throws Exception {
    Map<String, String> quota = Map.of("ETCD_QUOTA_BACKEND_BYTES", QUOTA_BYTES);
    runbooks =
        SandboxRunbooks.start(classDir, "3.4.23", Map.of("m1", quota, "m2", quota, "m3", quota));
    probe = new ClusterProbe(runbooks.sandbox.cluster());
    probe.putMany("/registry/x-", 10);
    pidsBefore = runbooks.pids();
  }

  @AfterAll
  void stopSandbox() {
    probe.close();
    runbooks.close();
  }

  /**
   * One member's host no longer shows the key known_hosts has for it. An upgrade used to upgrade
   * the other members, move leadership and fail on that host; now its preflight logs in to every
   * host first. The host chosen leads, so it would have been the last one touched; the worker holds
   * a session to it from before the change.
   */
  @Test
  @Order(0)
  void refusesWhenAMembersHostKeyDoesNotMatchKnownHostsAndNamesTheMemberAndHost() throws Exception {
    String leader = runbooks.state().leaderName();
    assertThat(runbooks.installedVersion(leader)).isEqualTo("3.4.23");
    String address = "127.0.0.1:" + runbooks.cluster().member(leader).sshPort();
    String knownHosts = runbooks.distrustHostOf(leader);
    try {
      assertRefused(
          UpgradeRequest.to("sandbox", "3.5.16", RunbookOptions.defaults()),
          "member "
              + leader
              + " ("
              + address
              + "): host key of "
              + address
              + " does not match the known_hosts file "
              + runbooks.cluster().ssh().knownHostsFile(),
          "otherwise treat the host as compromised");
    } finally {
      runbooks.restoreKnownHosts(knownHosts);
    }
    assertThat(
            runbooks
                .upgradeStub()
                .upgrade(
                    UpgradeRequest.to("sandbox", "3.5.16", RunbookOptions.defaults().asDryRun()))
                .dryRun())
        .as("with the key known again, a dry run passes its preflight")
        .isTrue();
  }

  @Test
  @Order(1)
  void refusesAnUnknownCluster() throws Exception {
    assertRefused(
        UpgradeRequest.to("prod-typo", "3.5.16", RunbookOptions.defaults()),
        "unknown cluster 'prod-typo'",
        "sandbox");
  }

  @Test
  @Order(2)
  void refusesADowngrade() throws Exception {
    assertRefused(
        UpgradeRequest.to("sandbox", "3.3.25", RunbookOptions.defaults()),
        "older than the running 3.4.23",
        "RollbackCluster runbook");
  }

  @Test
  @Order(3)
  void refusesTheVersionAlreadyRunning() throws Exception {
    assertRefused(
        UpgradeRequest.to("sandbox", "3.4.23", RunbookOptions.defaults()), "already runs 3.4.23");
  }

  @Test
  @Order(4)
  void refusesATargetTheBinarySourceDoesNotOffer() throws Exception {
    assertRefused(
        UpgradeRequest.to("sandbox", "3.5.99", RunbookOptions.defaults()),
        "3.5.99 is not offered",
        "3.5.30");
  }

  @Test
  @Order(5)
  void refusesWhileANoSpaceAlarmIsRaised() throws Exception {
    String big = "x".repeat(512 * 1024);
    for (int i = 0; i < 64; i++) {
      try {
        probe.put("/fill/" + i, big);
      } catch (Exception databaseSpaceExceeded) {
        break;
      }
    }
    assertThat(runbooks.state().alarms()).anySatisfy(a -> assertThat(a).contains("NOSPACE"));
    assertRefused(
        UpgradeRequest.to("sandbox", "3.5.16", RunbookOptions.defaults()), "alarm raised: NOSPACE");
  }

  @Test
  @Order(6)
  void refusesWhenAMemberIsUnreachableAndNamesIt() throws Exception {
    runbooks.sandbox.kill("m3");
    pidsBefore.put("m3", -1L);
    assertRefused(
        UpgradeRequest.to("sandbox", "3.5.16", RunbookOptions.defaults()),
        "member m3 is unreachable");
  }

  private void assertRefused(UpgradeRequest request, String... messageParts) throws Exception {
    assertThatThrownBy(() -> runbooks.upgradeStub(request.cluster()).upgrade(request))
        .isInstanceOf(WorkflowFailedException.class)
        .satisfies(
            e -> {
              assertThat(Failures.rootMessage(e))
                  .contains("refused, nothing was touched")
                  .contains(messageParts);
              assertThat(rootFailure(e).getType()).isEqualTo(FailureType.PreflightRefused.name());
            });
    assertThat(runbooks.pids()).isEqualTo(pidsBefore);
    assertThat(runbooks.backups()).isEmpty();
    runbooks.state().members().stream()
        .filter(m -> m.reachable())
        .forEach(m -> assertThat(m.serverVersion()).isEqualTo("3.4.23"));
  }

  private static ApplicationFailure rootFailure(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null) t = t.getCause();
    return (ApplicationFailure) t;
  }
}
