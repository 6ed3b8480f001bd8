package io.etcdrunbooks.activities.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.testkit.EtcdReleases;
import io.etcdrunbooks.testkit.ImageRegistryStandIn;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.workflows.activities.HostActivities;
import io.etcdrunbooks.workflows.activities.HostActivities.InstallRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.LogTailRequest;
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
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * HostActivitiesImpl on kubelet static pods (a kubelet stand-in per sandbox host), 3 members on
 * etcd 3.4.23.
 */
@RealEtcd
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class StaticPodHostActivitiesTest {

  private static final String CLUSTER = "pods";

  private Sandbox sandbox;
  private SshConnector ssh;
  private TestActivityEnvironment env;
  private HostActivities hosts;

  @BeforeAll
  void start(@TempDir Path tmp) {
    sandbox =
        Sandbox.create(
            new SandboxSpec(
                tmp.resolve("sb"), CLUSTER, 3, "3.4.23", Map.of(), ServiceSpec.STATIC_POD),
            EtcdReleases.store());
    ssh = new SshConnector();
    env = TestActivityEnvironment.newInstance();
    env.registerActivitiesImplementations(
        new HostActivitiesImpl(new ClusterTargets(sandbox::inventory, ssh), EtcdReleases.store()));
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
  void stopMovesTheManifestAwayAndStartPutsItBackBothIdempotent() throws Exception {
    MemberRef m1 = new MemberRef(CLUSTER, "m1");
    Path manifest = sandbox.manifestPath("m1");
    Path stashed = sandbox.stashDir("m1").resolve("etcd.yaml");
    String content = Files.readString(manifest);
    assertThat(sandbox.pidOf("m1")).isPositive();

    hosts.stopMember(m1);
    assertThat(manifest).doesNotExist();
    assertThat(stashed).hasContent(content);
    assertThat(sandbox.pidOf("m1")).isEqualTo(-1);
    hosts.stopMember(m1);
    assertThat(stashed).exists();

    hosts.startMember(m1);
    assertThat(manifest).hasContent(content);
    assertThat(stashed).doesNotExist();
    long pid = sandbox.pidOf("m1");
    assertThat(pid).isPositive();
    hosts.startMember(m1);
    assertThat(sandbox.pidOf("m1")).isEqualTo(pid);
    assertThat(
            awaitServerVersion(sandbox.cluster().member("m1").clientUrl(), Duration.ofSeconds(30)))
        .isEqualTo("3.4.23");
  }

  @Test
  void installChangesOnlyTheImageLineAndStartRunsTheNewVersion() throws Exception {
    MemberRef m2 = new MemberRef(CLUSTER, "m2");
    assertThat(hosts.installedVersion(m2)).isEqualTo("3.4.23");
    hosts.stopMember(m2);
    Path stashed = sandbox.stashDir("m2").resolve("etcd.yaml");
    List<String> before = Files.readAllLines(stashed);

    hosts.installVersion(new InstallRequest(CLUSTER, "m2", "3.5.16"));

    List<String> after = Files.readAllLines(stashed);
    assertThat(after).hasSameSizeAs(before);
    for (int i = 0; i < before.size(); i++) {
      if (before.get(i).contains("image:")) {
        assertThat(before.get(i)).isEqualTo("    image: " + sandbox.registry().image("3.4.23-0"));
        assertThat(after.get(i)).isEqualTo("    image: " + sandbox.registry().image("3.5.16-0"));
      } else {
        assertThat(after.get(i)).as("line %d", i + 1).isEqualTo(before.get(i));
      }
    }
    assertThat(Files.readString(stashed))
        .isEqualTo(String.join("\n", before).replace("etcd:3.4.23-0", "etcd:3.5.16-0") + "\n");
    assertThat(Files.readAllLines(sandbox.stashDir("m2").resolve("etcd.yaml.previous")))
        .isEqualTo(before);
    assertThat(sandbox.manifestPath("m2")).doesNotExist();
    assertThat(hosts.installedVersion(m2)).isEqualTo("3.5.16");

    String installed = Files.readString(stashed);
    hosts.installVersion(new InstallRequest(CLUSTER, "m2", "3.5.16"));
    assertThat(stashed).hasContent(installed);

    hosts.startMember(m2);
    assertThat(sandbox.manifestPath("m2")).hasContent(installed);
    assertThat(
            awaitServerVersion(sandbox.cluster().member("m2").clientUrl(), Duration.ofSeconds(30)))
        .isEqualTo("3.5.16");
    assertThat(awaitHealthy(sandbox.cluster().member("m2").clientUrl(), Duration.ofSeconds(30)))
        .isTrue();
    assertThat(hosts.installedVersion(m2)).isEqualTo("3.5.16");
  }

  @Test
  void stagePullsTheImageOnTheNodeOnceAndAPullThatFailsNamesTheNodeWithEtcdStillRunning() {
    long pid = sandbox.pidOf("m3");
    String image = sandbox.registry().image("3.5.30-0");

    assertThat(hosts.stageVersion(new InstallRequest(CLUSTER, "m3", "3.5.30")))
        .isEqualTo("image " + image + " pulled");
    assertThat(hosts.stageVersion(new InstallRequest(CLUSTER, "m3", "3.5.30")))
        .isEqualTo("image " + image + " already on the node");
    assertThat(ImageRegistryStandIn.pulledOn(sandbox.hostRoot("m3"))).containsOnlyOnce(image);

    sandbox.registry().remove("3.3.25-0");
    assertThatThrownBy(() -> hosts.stageVersion(new InstallRequest(CLUSTER, "m3", "3.3.25")))
        .isInstanceOf(ActivityFailure.class)
        .cause()
        .isInstanceOf(ApplicationFailure.class)
        .satisfies(
            f -> {
              assertThat(((ApplicationFailure) f).getType()).isEqualTo("ImagePullFailed");
              assertThat(((ApplicationFailure) f).getOriginalMessage())
                  .contains("member 'm3'", sandbox.registry().image("3.3.25-0"), "NotFound");
            });
    assertThat(sandbox.pidOf("m3")).isEqualTo(pid);
  }

  @Test
  void anUnknownVersionIsRefusedBeforeTheManifestIsTouched() throws Exception {
    String before = Files.readString(sandbox.manifestPath("m3"));

    assertThatThrownBy(() -> hosts.installVersion(new InstallRequest(CLUSTER, "m3", "9.9.9")))
        .isInstanceOf(ActivityFailure.class)
        .cause()
        .isInstanceOf(ApplicationFailure.class)
        .satisfies(f -> assertThat(((ApplicationFailure) f).getType()).isEqualTo("UnknownVersion"));
    assertThat(sandbox.manifestPath("m3")).hasContent(before);
    assertThat(sandbox.stashDir("m3").resolve("etcd.yaml.previous")).doesNotExist();
  }

  @Test
  void logTailReadsTheLogTheLogCommandNames() {
    String tail = hosts.logTail(new LogTailRequest(CLUSTER, "m3", 5));

    assertThat(tail.lines()).hasSizeBetween(1, 5);
    assertThat(tail).containsIgnoringCase("etcd");
  }

  private static String awaitServerVersion(String clientUrl, Duration timeout)
      throws InterruptedException {
    java.util.regex.Pattern version =
        java.util.regex.Pattern.compile("\"etcdserver\"\\s*:\\s*\"([^\"]+)\"");
    String body = awaitGet(clientUrl + "/version", timeout, b -> version.matcher(b).find());
    var m = version.matcher(body);
    m.find();
    return m.group(1);
  }

  private static boolean awaitHealthy(String clientUrl, Duration timeout)
      throws InterruptedException {
    return awaitGet(
            clientUrl + "/health", timeout, b -> b.replace(" ", "").contains("\"health\":\"true\""))
        != null;
  }

  /** The first body of GET url that satisfies done, bounded. */
  private static String awaitGet(
      String url, Duration timeout, java.util.function.Predicate<String> done)
      throws InterruptedException {
    HttpClient http = HttpClient.newHttpClient();
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      try {
        String body =
            http.send(
                    HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(2)).build(),
                    HttpResponse.BodyHandlers.ofString())
                .body();
        if (done.test(body)) return body;
      } catch (java.io.IOException notYet) {
        // not listening yet
      }
      if (System.nanoTime() > deadline)
        throw new AssertionError("no answer from " + url + " within " + timeout);
      Thread.sleep(200);
    }
  }
}
