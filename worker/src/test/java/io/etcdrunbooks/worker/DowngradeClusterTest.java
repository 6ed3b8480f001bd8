package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.activities.etcd.DowngradeActivitiesImpl;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.activities.HostActivities;
import io.etcdrunbooks.workflows.activities.HostActivities.RestartOutcome;
import io.etcdrunbooks.workflows.activities.HostActivities.RestartRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.downgrade.DowngradeClusterWorkflow;
import io.etcdrunbooks.workflows.downgrade.DowngradeRequest;
import io.etcdrunbooks.workflows.downgrade.DowngradeResult;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.failure.ApplicationFailure;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * etcd's online downgrade on one real 3-member cluster, each step on the cluster the one before
 * left: 3.7.3 down to 3.6.16; then a downgrade to 3.5.35 whose second member fails (its restart on
 * 3.5.35 really happens, then fails as a member that does not come up would) is cancelled in etcd
 * while mixed and the cluster is back serving on 3.6; then 3.6.16 down to 3.5.35 under a writer.
 */
@RealEtcd
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class DowngradeClusterTest {

  private static final Map<String, String> ALL_ON_36 =
      Map.of("m1", "3.6.16", "m2", "3.6.16", "m3", "3.6.16");

  @TempDir static Path dir;

  private final FailsOn35 failing = new FailsOn35();
  private SandboxRunbooks runbooks;
  private ClusterProbe probe;
  private DowngradeActivitiesImpl downgrade;

  @BeforeAll
  void start() {
    runbooks = SandboxRunbooks.startWrappingHost(dir, "3.7.3", failing::around);
    probe = new ClusterProbe(runbooks.sandbox.cluster());
    downgrade = new DowngradeActivitiesImpl(ClusterTargets.etcdOnly(runbooks.inventory));
  }

  @AfterAll
  void stop() {
    probe.close();
    runbooks.close();
  }

  @Test
  @Order(1)
  void a37ClusterGoesDownTo36LeaderLastWithEveryKey() throws Exception {
    probe.putMany("/registry/pods/p-", 200);
    long revision = probe.revision();
    var keys = probe.dump(revision);
    String leader = runbooks.state().leaderName();

    DowngradeResult result = stub().downgrade(request("3.6.16"));

    assertThat(result.membersToDowngrade()).hasSize(3).last().isEqualTo(leader);
    assertThat(result.storageVersion()).isEqualTo("3.6.0");
    assertThat(probe.versions()).isEqualTo(ALL_ON_36);
    assertThat(probe.clusterVersion()).isEqualTo("3.6.0");
    assertThat(storageVersions())
        .containsOnly(Map.entry("m1", "3.6.0"), Map.entry("m2", "3.6.0"), Map.entry("m3", "3.6.0"));
    assertThat(probe.dump(revision)).isEqualTo(keys);
    assertEqualHashes();
  }

  @Test
  @Order(2)
  void aMemberFailingOn35CancelsTheDowngradeWhileMixedAndThe36ClusterServesAgain()
      throws Exception {
    failing.armForSecondRestartOn("3.5.35");

    assertThatThrownBy(() -> stub().downgrade(request("3.5.35")))
        .isInstanceOf(WorkflowFailedException.class)
        .satisfies(
            e -> {
              assertThat(Failures.rootType(e)).isEqualTo(FailureType.DowngradeRolledBack.name());
              assertThat(Failures.rootMessage(e))
                  .contains(
                      "failed at member " + failing.failedMember,
                      "did not become ready (injected)",
                      "Undone: etcd downgrade cancel, " + failing.failedMember + " back on 3.6.16");
            });

    assertThat(failing.versionsAtFailure.values()).contains("3.5.35", "3.6.16");
    assertThat(probe.versions()).isEqualTo(ALL_ON_36);
    assertThat(runbooks.state().members()).allSatisfy(m -> assertThat(m.healthy()).isTrue());
    assertThat(downgrade.status(new ClusterRef("sandbox")).enabled()).isFalse();
    assertThat(eventually(() -> clusterVersion(), "3.6.0")).isEqualTo("3.6.0");
    assertThat(
            eventually(
                () -> storageVersions(), Map.of("m1", "3.6.0", "m2", "3.6.0", "m3", "3.6.0")))
        .containsOnly(Map.entry("m1", "3.6.0"), Map.entry("m2", "3.6.0"), Map.entry("m3", "3.6.0"));
    probe.putMany("/registry/after-cancel/k-", 10);
    assertEqualHashes();
  }

  @Test
  @Order(3)
  void a36ClusterGoesDownTo35UnderAWriterWithoutLosingAnAcknowledgedWrite() throws Exception {
    failing.disarm();
    String leader = runbooks.state().leaderName();
    DowngradeResult result;
    try (AcknowledgedWriter writer = AcknowledgedWriter.start(runbooks.cluster(), null)) {
      result = stub().downgrade(request("3.5.35"));
      writer.stopAndCheckEveryAcknowledgedWrite(runbooks.cluster());
    }

    assertThat(result.membersToDowngrade()).hasSize(3).last().isEqualTo(leader);
    assertThat(result.storageVersion()).isEqualTo("3.5.0");
    assertThat(result.clusterVersion()).isEqualTo("3.5.0");
    assertThat(probe.versions())
        .containsOnly(
            Map.entry("m1", "3.5.35"), Map.entry("m2", "3.5.35"), Map.entry("m3", "3.5.35"));
    assertThat(probe.clusterVersion()).isEqualTo("3.5.0");
    assertThat(runbooks.state().members()).allSatisfy(m -> assertThat(m.healthy()).isTrue());
    assertEqualHashes();
  }

  private void assertEqualHashes() throws Exception {
    long now = probe.revision();
    assertThat(probe.hashKvByMember(now).values().stream().distinct()).hasSize(1);
  }

  private Map<String, String> storageVersions() {
    return downgrade.status(new ClusterRef("sandbox")).storageVersions();
  }

  private String clusterVersion() {
    try {
      return probe.clusterVersion();
    } catch (Exception e) {
      return e.toString();
    }
  }

  /** What {@code read} gives once it gives {@code wanted}, or after 30 s. */
  private static <T> T eventually(Supplier<T> read, T wanted) throws InterruptedException {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
    T seen = read.get();
    while (!wanted.equals(seen) && Instant.now().isBefore(deadline)) {
      TimeUnit.MILLISECONDS.sleep(200);
      seen = read.get();
    }
    return seen;
  }

  private DowngradeClusterWorkflow stub() {
    return runbooks
        .client()
        .newWorkflowStub(
            DowngradeClusterWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(DowngradeClusterWorkflow.workflowId("sandbox"))
                .setTaskQueue(SandboxRunbooks.TASK_QUEUE)
                .build());
  }

  private static DowngradeRequest request(String version) {
    return DowngradeRequest.to(
        "sandbox", version, RunbookOptions.defaults().withMemberTimeoutSeconds(60));
  }

  /**
   * Real host activities; when armed, the second restart onto the version really restarts the
   * member on it, then fails as a member that does not become ready: a real mixed cluster with the
   * downgrade enabled, for the compensation to cancel and undo.
   */
  final class FailsOn35 {
    private volatile String version = "";
    private final AtomicInteger restarts = new AtomicInteger();
    volatile String failedMember = "";
    volatile Map<String, String> versionsAtFailure = Map.of();

    void armForSecondRestartOn(String version) {
      restarts.set(0);
      this.version = version;
    }

    void disarm() {
      version = "";
    }

    HostActivities around(HostActivities real) {
      return (HostActivities)
          Proxy.newProxyInstance(
              HostActivities.class.getClassLoader(),
              new Class<?>[] {HostActivities.class},
              (proxy, method, args) -> {
                if (method.getName().equals("restartMember"))
                  return restart(real, (RestartRequest) args[0]);
                try {
                  return method.invoke(real, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              });
    }

    private RestartOutcome restart(HostActivities real, RestartRequest request) throws Exception {
      RestartOutcome outcome = real.restartMember(request);
      if (request.version().equals(version) && restarts.incrementAndGet() == 2) {
        failedMember = request.member();
        versionsAtFailure = probe.versions();
        throw ApplicationFailure.newNonRetryableFailure(
            "etcd " + version + " on " + request.member() + " did not become ready (injected)",
            "MemberStartFailed");
      }
      return outcome;
    }
  }
}
