package io.etcdrunbooks.activities.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.testkit.EtcdReleases;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.workflows.activities.HostActivities;
import io.etcdrunbooks.workflows.activities.HostActivities.InstallRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.LogTailRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.RestartOutcome;
import io.etcdrunbooks.workflows.activities.HostActivities.RestartRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.SwitchOutcome;
import io.etcdrunbooks.workflows.activities.HostActivities.WatchRequest;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.model.MemberFlags;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * HostActivitiesImpl through Temporal's activity test environment, against a 3-member sandbox on
 * etcd 3.4.23.
 */
@RealEtcd
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class HostActivitiesImplTest {

  private static final String CLUSTER = "hosts";

  private Sandbox sandbox;
  private SshConnector ssh;
  private TestActivityEnvironment env;
  private HostActivities hosts;
  private final List<String> heartbeats = new CopyOnWriteArrayList<>();

  @BeforeAll
  void start(@TempDir Path tmp) {
    // 3.4 accepts the capnslog logger, 3.5 refuses it: m3 runs now and cannot start after an
    // upgrade.
    sandbox =
        Sandbox.create(
            new SandboxSpec(
                tmp.resolve("sb"),
                CLUSTER,
                3,
                "3.4.23",
                Map.of("m3", Map.of("ETCD_LOGGER", "capnslog"))),
            EtcdReleases.store());
    ssh = new SshConnector();
    env = TestActivityEnvironment.newInstance();
    env.registerActivitiesImplementations(
        new HostActivitiesImpl(new ClusterTargets(sandbox::inventory, ssh), EtcdReleases.store()));
    env.setActivityHeartbeatListener(String.class, heartbeats::add);
    hosts =
        env.newActivityStub(
            HostActivities.class,
            ActivityOptions.newBuilder()
                .setStartToCloseTimeout(Duration.ofMinutes(2))
                .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
                .build());
  }

  @AfterAll
  void stop() {
    if (env != null) env.close();
    if (ssh != null) ssh.close();
    if (sandbox != null) sandbox.close();
  }

  @Test
  void memberFlagsAreReadFromTheRunningProcessItsEnvironmentFileIncluded() {
    MemberFlags flags = hosts.memberFlags(new MemberRef(CLUSTER, "m3"));

    assertThat(flags.running()).isTrue();
    assertThat(flags.args()).as("the plain service passes everything in etcd.env").isEmpty();
    assertThat(flags.env())
        .containsEntry("ETCD_NAME", "m3")
        .containsEntry("ETCD_DATA_DIR", sandbox.cluster().member("m3").dataDir())
        .allSatisfy((name, value) -> assertThat(name).startsWith("ETCD_"));
  }

  @Test
  void stopAndStartDoNothingWhenAlreadyDone() {
    MemberRef m1 = new MemberRef(CLUSTER, "m1");
    assertThat(sandbox.pidOf("m1")).isPositive();

    hosts.stopMember(m1);
    assertThat(sandbox.pidOf("m1")).isEqualTo(-1);
    assertThat(sandbox.hostRoot("m1").resolve("etc/etcd/etcd.pid")).doesNotExist();
    assertThat(heartbeats).anyMatch(h -> h.contains("to exit"));
    hosts.stopMember(m1);

    hosts.startMember(m1);
    long pid = sandbox.pidOf("m1");
    assertThat(pid).isPositive();
    hosts.startMember(m1);
    assertThat(sandbox.pidOf("m1")).isEqualTo(pid);
  }

  @Test
  void givenItsRunHasEndedAnInstallUploadsButDoesNotSelectTheVersion() {
    TestActivityEnvironment ended = TestActivityEnvironment.newInstance();
    try {
      ended.registerActivitiesImplementations(
          new HostActivitiesImpl(new ClusterTargets(sandbox::inventory, ssh), EtcdReleases.store())
              .withRunLiveness((workflowId, runId) -> false));
      HostActivities stale =
          ended.newActivityStub(
              HostActivities.class,
              ActivityOptions.newBuilder()
                  .setStartToCloseTimeout(Duration.ofMinutes(2))
                  .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
                  .build());
      assertThatThrownBy(() -> stale.installVersion(new InstallRequest(CLUSTER, "m1", "3.5.16")))
          .isInstanceOf(ActivityFailure.class)
          .satisfies(
              e ->
                  assertThat(Failures.rootMessage(e))
                      .contains("has ended", "before it would select etcd 3.5.16 on m1"));
    } finally {
      ended.close();
    }
    assertThat(hosts.installedVersion(new MemberRef(CLUSTER, "m1"))).isEqualTo("3.4.23");
  }

  @Test
  void installsAVersionOnceAndRunsIt() throws Exception {
    Path etcd = sandbox.hostRoot("m2").resolve("opt/etcd/versions/3.5.16/etcd");

    hosts.installVersion(new InstallRequest(CLUSTER, "m2", "3.5.16"));
    assertThat(hosts.installedVersion(new MemberRef(CLUSTER, "m2"))).isEqualTo("3.5.16");
    assertThat(heartbeats).anyMatch(h -> h.startsWith("uploading etcd 3.5.16 to m2"));
    assertThat(etcd).isExecutable();
    assertThat(BinaryInstaller.sha256Of(etcd))
        .isEqualTo(BinaryInstaller.sha256Of(EtcdReleases.binDir("3.5.16").resolve("etcd")));
    assertThat(sandbox.hostRoot("m2").resolve("opt/etcd/versions/3.5.16/etcdutl")).isExecutable();

    FileTime uploaded = Files.getLastModifiedTime(etcd);
    Thread.sleep(20); // not a wait for anything: a new upload must get a later modification time

    hosts.installVersion(new InstallRequest(CLUSTER, "m2", "3.5.16"));
    assertThat(Files.getLastModifiedTime(etcd)).isEqualTo(uploaded);
    try (Stream<Path> versions = Files.list(sandbox.hostRoot("m2").resolve("opt/etcd/versions"))) {
      assertThat(versions.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("3.4.23", "3.5.16");
    }

    MemberRef m2 = new MemberRef(CLUSTER, "m2");
    hosts.stopMember(m2);
    hosts.startMember(m2);
    assertThat(
            awaitServerVersion(sandbox.cluster().member("m2").clientUrl(), Duration.ofSeconds(30)))
        .isEqualTo("3.5.16");
  }

  @Test
  void aCorruptedInstalledVersionIsUploadedAgain() throws Exception {
    Path etcdctl = sandbox.hostRoot("m1").resolve("opt/etcd/versions/3.4.23/etcdctl");
    Files.write(etcdctl, new byte[] {0}, StandardOpenOption.APPEND);

    hosts.installVersion(new InstallRequest(CLUSTER, "m1", "3.4.23"));

    assertThat(BinaryInstaller.sha256Of(etcdctl))
        .isEqualTo(BinaryInstaller.sha256Of(EtcdReleases.binDir("3.4.23").resolve("etcdctl")));
    assertThat(hosts.installedVersion(new MemberRef(CLUSTER, "m1"))).isEqualTo("3.4.23");
  }

  @Test
  void stagingUploadsAVersionOnceWithoutSelectingItAndUploadsAFileChangedSinceAgain()
      throws Exception {
    MemberRef m1 = new MemberRef(CLUSTER, "m1");
    Path etcdctl = sandbox.hostRoot("m1").resolve("opt/etcd/versions/3.5.16/etcdctl");
    Path expected = EtcdReleases.binDir("3.5.16").resolve("etcdctl");

    // uploaded now, or by an earlier test of this class
    assertThat(hosts.stageVersion(new InstallRequest(CLUSTER, "m1", "3.5.16")))
        .endsWith("SHA-256 checked");
    assertThat(hosts.installedVersion(m1)).isEqualTo("3.4.23");
    assertThat(BinaryInstaller.sha256Of(etcdctl)).isEqualTo(BinaryInstaller.sha256Of(expected));
    assertThat(hosts.stageVersion(new InstallRequest(CLUSTER, "m1", "3.5.16")))
        .startsWith("already present");

    Files.write(etcdctl, new byte[] {0}, StandardOpenOption.APPEND);
    assertThat(hosts.stageVersion(new InstallRequest(CLUSTER, "m1", "3.5.16")))
        .startsWith("uploaded");
    assertThat(BinaryInstaller.sha256Of(etcdctl)).isEqualTo(BinaryInstaller.sha256Of(expected));
    assertThat(hosts.installedVersion(m1)).isEqualTo("3.4.23");
  }

  @Test
  void aLaunchedMemberWhoseEtcdExitsFailsItsWatchWithItsLogAndAHealthyOnePassesIt()
      throws Exception {
    hosts.watchMember(new WatchRequest(CLUSTER, "m1", 1));

    MemberRef m3 = new MemberRef(CLUSTER, "m3");
    hosts.stopMember(m3);
    hosts.installVersion(new InstallRequest(CLUSTER, "m3", "3.5.16"));
    hosts.launchMember(m3);
    assertFailure(
            () -> hosts.watchMember(new WatchRequest(CLUSTER, "m3", 30)), "MemberStartFailed", true)
        .hasMessageContaining("removed in v3.5")
        .hasMessageContaining("member 'm3'");

    hosts.installVersion(new InstallRequest(CLUSTER, "m3", "3.4.23"));
    hosts.startMember(m3);
    assertThat(
            awaitServerVersion(sandbox.cluster().member("m3").clientUrl(), Duration.ofSeconds(30)))
        .isEqualTo("3.4.23");
  }

  @Test
  void aSwitchRestartsTheMemberOnTheVersionOnceAndARetryOfItTouchesNothing() throws Exception {
    MemberRef m1 = new MemberRef(CLUSTER, "m1");
    long before = sandbox.pidOf("m1");
    SwitchOutcome switched = hosts.switchVersion(new InstallRequest(CLUSTER, "m1", "3.5.16"));
    assertThat(switched.steps())
        .extracting(step -> step.substring(0, step.lastIndexOf(' ', step.length() - 4)))
        .containsExactly("stop", "flags", "select 3.5.16", "start");
    assertThat(
            awaitServerVersion(sandbox.cluster().member("m1").clientUrl(), Duration.ofSeconds(30)))
        .isEqualTo("3.5.16");
    long after = sandbox.pidOf("m1");
    assertThat(after).isPositive().isNotEqualTo(before);

    assertThat(hosts.switchVersion(new InstallRequest(CLUSTER, "m1", "3.5.16")).steps())
        .containsExactly("already running 3.5.16");
    assertThat(sandbox.pidOf("m1")).isEqualTo(after);

    hosts.switchVersion(new InstallRequest(CLUSTER, "m1", "3.4.23"));
    assertThat(
            awaitServerVersion(sandbox.cluster().member("m1").clientUrl(), Duration.ofSeconds(30)))
        .isEqualTo("3.4.23");
    assertThat(hosts.installedVersion(m1)).isEqualTo("3.4.23");
  }

  @Test
  void aRestartEndsWithTheMemberReadyOnTheVersionAndARetryOnlySeesItReady() throws Exception {
    // another test of this class may have left m2 on 3.5.16: go to the version it does not run
    String from = hosts.installedVersion(new MemberRef(CLUSTER, "m2"));
    String to = from.equals("3.5.16") ? "3.4.23" : "3.5.16";
    long before = sandbox.pidOf("m2");
    RestartOutcome restarted = hosts.restartMember(new RestartRequest(CLUSTER, "m2", to, 60));
    assertThat(restarted.restarted()).isTrue();
    assertThat(restarted.steps())
        .extracting(step -> step.substring(0, step.lastIndexOf(' ', step.length() - 4)))
        .containsExactly("stop", "flags", "select " + to, "start", "ready");
    // ready when it returns: no wait here
    assertThat(awaitServerVersion(sandbox.cluster().member("m2").clientUrl(), Duration.ZERO))
        .isEqualTo(to);
    assertThat(restarted.downMillis()).isPositive();
    // the cluster as the next member's checks see it: every member healthy, m2 on its new version
    assertThat(restarted.after().members())
        .allSatisfy(m -> assertThat(m.healthy()).as(m.name() + " healthy").isTrue());
    assertThat(restarted.after().member("m2").orElseThrow().serverVersion()).isEqualTo(to);
    assertThat(restarted.after().leaderName()).isNotEmpty();
    long after = sandbox.pidOf("m2");
    assertThat(after).isPositive().isNotEqualTo(before);

    RestartOutcome retried = hosts.restartMember(new RestartRequest(CLUSTER, "m2", to, 60));
    assertThat(retried.restarted()).isFalse();
    assertThat(retried.steps().get(0)).isEqualTo("already running " + to);
    assertThat(sandbox.pidOf("m2")).isEqualTo(after);

    hosts.restartMember(new RestartRequest(CLUSTER, "m2", from, 60));
    assertThat(awaitServerVersion(sandbox.cluster().member("m2").clientUrl(), Duration.ZERO))
        .isEqualTo(from);
  }

  @Test
  void aRestartWhoseEtcdExitsFailsAtOnceWithItsLogNotAfterItsTimeout() throws Exception {
    long started = System.nanoTime();
    assertFailure(
            () -> hosts.restartMember(new RestartRequest(CLUSTER, "m3", "3.5.16", 120)),
            "MemberStartFailed",
            true)
        .hasMessageContaining("removed in v3.5")
        .hasMessageContaining("member 'm3'");
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(60));

    hosts.restartMember(new RestartRequest(CLUSTER, "m3", "3.4.23", 60));
    assertThat(awaitServerVersion(sandbox.cluster().member("m3").clientUrl(), Duration.ZERO))
        .isEqualTo("3.4.23");
  }

  @Test
  void logTailReturnsTheLastEtcdLogLines() throws Exception {
    String tail = hosts.logTail(new LogTailRequest(CLUSTER, "m1", 5));

    // which lines etcd wrote last varies; that they are lines of m1's log, written by etcd, does
    // not
    String log =
        Files.readString(Path.of(sandbox.cluster().member("m1").serviceDir()).resolve("etcd.log"));
    assertThat(tail.lines()).hasSizeBetween(1, 5);
    assertThat(tail.lines()).allSatisfy(line -> assertThat(log).contains(line));
    assertThat(tail).containsPattern("\\d{4}-\\d{2}-\\d{2}[ T]\\d{2}:\\d{2}");
  }

  @Test
  void aMemberWhoseConfigTheNewVersionRefusesFailsToStartAndSaysWhy() throws Exception {
    MemberRef m3 = new MemberRef(CLUSTER, "m3");
    hosts.stopMember(m3);
    hosts.installVersion(new InstallRequest(CLUSTER, "m3", "3.5.16"));

    assertFailure(() -> hosts.startMember(m3), "MemberStartFailed", true)
        .hasMessageContaining("removed in v3.5")
        .hasMessageContaining("member 'm3'")
        .hasMessageContaining("127.0.0.1:" + sandbox.cluster().member("m3").sshPort());
    assertThat(sandbox.pidOf("m3")).isEqualTo(-1);
    assertThat(hosts.logTail(new LogTailRequest(CLUSTER, "m3", 20)))
        .contains("--logger=capnslog is removed in v3.5");

    // Going back to the previous version brings the member back.
    hosts.installVersion(new InstallRequest(CLUSTER, "m3", "3.4.23"));
    hosts.startMember(m3);
    assertThat(sandbox.pidOf("m3")).isPositive();
    assertThat(
            awaitServerVersion(sandbox.cluster().member("m3").clientUrl(), Duration.ofSeconds(30)))
        .isEqualTo("3.4.23");
  }

  @Test
  void unknownNamesAreNotRetried() {
    assertFailure(() -> hosts.stopMember(new MemberRef(CLUSTER, "m9")), "UnknownMember", true)
        .hasMessageContaining("m9");
    assertFailure(() -> hosts.stopMember(new MemberRef("nope", "m1")), "UnknownCluster", true)
        .hasMessageContaining("nope");
    assertFailure(
            () -> hosts.installVersion(new InstallRequest(CLUSTER, "m1", "9.9.9")),
            "UnknownVersion",
            true)
        .hasMessageContaining("9.9.9");
  }

  private static org.assertj.core.api.AbstractThrowableAssert<?, ? extends Throwable> assertFailure(
      ThrowingCallable call, String type, boolean nonRetryable) {
    var failure =
        assertThatThrownBy(call)
            .isInstanceOf(ActivityFailure.class)
            .cause()
            .isInstanceOf(ApplicationFailure.class);
    failure.satisfies(
        f -> {
          ApplicationFailure app = (ApplicationFailure) f;
          assertThat(app.getType()).isEqualTo(type);
          assertThat(app.isNonRetryable()).isEqualTo(nonRetryable);
        });
    return failure;
  }

  /** The server version GET /version reports once the member answers, bounded. */
  private static String awaitServerVersion(String clientUrl, Duration timeout)
      throws InterruptedException {
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      try {
        String body =
            http.send(
                    HttpRequest.newBuilder(URI.create(clientUrl + "/version"))
                        .timeout(Duration.ofSeconds(2))
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .body();
        var m =
            java.util.regex.Pattern.compile("\"etcdserver\"\\s*:\\s*\"([^\"]+)\"").matcher(body);
        if (m.find()) return m.group(1);
      } catch (java.io.IOException notYet) {
        // not listening yet
      }
      if (System.nanoTime() > deadline)
        throw new AssertionError("no version from " + clientUrl + " within " + timeout);
      Thread.sleep(200);
    }
  }
}
