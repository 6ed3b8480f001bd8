package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.testkit.ControlPlaneStandIns;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.temporal.client.WorkflowFailedException;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 3.3.25 cluster whose Kubernetes data still lives in the v2 store (as Kubernetes 1.5 wrote it):
 * an upgrade to 3.5.30 would leave it behind an API that 3.4 turns off, so it is refused before
 * anything is touched, naming the v2 keys and the kube-apiservers that read them.
 */
@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class V2DataUpgradeRefusalTest {

  @TempDir Path dir;

  @Test
  void anUpgradeOfAClusterWithV2DataIsRefusedAndTouchesNothing() throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.3.25", Map.of());
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(runbooks.sandbox, "etcd2")) {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
      String client = runbooks.sandbox.cluster().member("m1").clientUrl();
      for (int i = 0; i < 40; i++) {
        String ttl = i < 10 ? "&ttl=3600" : "";
        HttpResponse<String> answer =
            http.send(
                HttpRequest.newBuilder(URI.create(client + "/v2/keys/registry/minions/node-" + i))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .PUT(HttpRequest.BodyPublishers.ofString("value=node" + ttl))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isIn(200, 201);
      }
      Map<String, Long> pidsBefore = runbooks.pids();

      UpgradeRequest request = UpgradeRequest.to("sandbox", "3.5.30", RunbookOptions.defaults());
      assertThatThrownBy(() -> runbooks.upgradeStub().upgrade(request))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                assertThat(Failures.rootType(e)).isEqualTo(FailureType.PreflightRefused.name());
                assertThat(Failures.rootMessage(e))
                    .contains(
                        "refused, nothing was touched",
                        "holds 40 keys in the v2 store (10 with a TTL; v2 API served by [m1, m2, m3])",
                        "Migrate them to v3 first",
                        "kube-apiserver on cp-m1 reads etcd2 (--storage-backend=etcd2)");
              });
      assertThat(runbooks.pids()).isEqualTo(pidsBefore);
      assertThat(runbooks.backups()).isEmpty();
      for (String host : apiServers.hosts()) {
        assertThat(HttpProbe.status(apiServers.standIn(host).healthUrl()))
            .as("%s still serving from etcd2", host)
            .isEqualTo(200);
      }
      runbooks.state().members().forEach(m -> assertThat(m.serverVersion()).isEqualTo("3.3.25"));
    }
  }

  /**
   * v2 data the v2 API no longer shows (the member that served it was restarted without
   * --enable-v2): the preflight cannot see it, but `etcdutl check v2store` of 3.5.35, run on the
   * first member's data dir while it is stopped for 3.6, finds the v2 request in the WAL. 3.6 is
   * never started there: the member runs 3.5.35 again and the run names it and what to do.
   */
  @Test
  void v2DataOnlyTheDataDirShowsStopsTheMoveTo3_6AtTheFirstMember() throws Exception {
    try (SandboxRunbooks runbooks =
        SandboxRunbooks.start(dir, "3.5.35", Map.of("m1", Map.of("ETCD_ENABLE_V2", "true")))) {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
      String client = runbooks.sandbox.cluster().member("m1").clientUrl();
      HttpResponse<String> answer =
          http.send(
              HttpRequest.newBuilder(URI.create(client + "/v2/keys/coreos.com/network/config"))
                  .header("Content-Type", "application/x-www-form-urlencoded")
                  .PUT(HttpRequest.BodyPublishers.ofString("value={\"Network\":\"10.1.0.0/16\"}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(answer.statusCode()).as(answer.body()).isIn(200, 201);
      // the v2 API off again: no member serves it, the data stays in the WAL
      Path env = Path.of(runbooks.cluster().member("m1").serviceDir(), "etcd.env");
      Files.writeString(env, Files.readString(env).replaceAll("(?m)^ETCD_ENABLE_V2=.*\n", ""));
      runbooks.host().stopMember(new MemberRef("sandbox", "m1"));
      runbooks.host().startMember(new MemberRef("sandbox", "m1"));
      awaitHealthy(runbooks);

      assertThatThrownBy(() -> runbooks.upgradeStub().upgrade(runbooks.request("3.6.16")))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e ->
                  assertThat(Failures.rootMessage(e))
                      .contains(
                          "etcdutl check v2store",
                          "detected custom v2 content in WAL records",
                          "was not started there",
                          "MigrateV2ToV3",
                          "--snapshot-count=1"));
      awaitHealthy(runbooks);
      assertThat(runbooks.state().members())
          .allSatisfy(m -> assertThat(m.serverVersion()).isEqualTo("3.5.35"));
      for (String member : List.of("m1", "m2", "m3")) {
        assertThat(runbooks.installedVersion(member)).as(member).isEqualTo("3.5.35");
      }
    }
  }

  /**
   * The same on static pods, whose hosts have no etcd binaries: 3.5.35's etcdutl from the worker's
   * release store, copied to a private directory on m1's host for the check and gone afterwards,
   * finds the v2 request in the stopped member's WAL; m1 runs 3.5.35 again from its own manifest.
   */
  @Test
  void onStaticPodsTheLeavingReleasesEtcdutlIsCopiedToTheHostAndStopsTheMoveTo3_6()
      throws Exception {
    try (SandboxRunbooks runbooks =
        SandboxRunbooks.start(
            dir,
            "3.5.35",
            Map.of("m1", Map.of("ETCD_ENABLE_V2", "true")),
            ServiceSpec.STATIC_POD)) {
      putV2Key(runbooks);
      // the v2 API off again: kubelet's stand-in restarts m1 without it
      Path manifest = runbooks.sandbox.manifestPath("m1");
      long pidBefore = runbooks.sandbox.pidOf("m1");
      Files.writeString(
          manifest, Files.readString(manifest).replace("    - --enable-v2=true\n", ""));
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (runbooks.sandbox.pidOf("m1") <= 0 || runbooks.sandbox.pidOf("m1") == pidBefore) {
        assertThat(System.nanoTime()).as("m1 restarted within 30 s").isLessThan(deadline);
        TimeUnit.MILLISECONDS.sleep(100);
      }
      awaitHealthy(runbooks);
      Map<String, String> manifestsBefore = manifests(runbooks);
      List<Path> copiesBefore = etcdutlCopies();

      assertThatThrownBy(() -> runbooks.upgradeStub().upgrade(runbooks.request("3.6.16")))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e ->
                  assertThat(Failures.rootMessage(e))
                      .contains(
                          "etcdutl 3.5.35 check v2store",
                          "detected custom v2 content in WAL records",
                          "was not started there",
                          "MigrateV2ToV3"));
      awaitHealthy(runbooks);
      assertThat(runbooks.state().members())
          .allSatisfy(m -> assertThat(m.serverVersion()).isEqualTo("3.5.35"));
      assertThat(manifests(runbooks)).isEqualTo(manifestsBefore);
      assertThat(etcdutlCopies()).as("etcdutl copies left on the host").isEqualTo(copiesBefore);
    }
  }

  private static void putV2Key(SandboxRunbooks runbooks) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
    String client = runbooks.sandbox.cluster().member("m1").clientUrl();
    HttpResponse<String> answer =
        http.send(
            HttpRequest.newBuilder(URI.create(client + "/v2/keys/coreos.com/network/config"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .PUT(HttpRequest.BodyPublishers.ofString("value={\"Network\":\"10.1.0.0/16\"}"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as(answer.body()).isIn(200, 201);
  }

  private static Map<String, String> manifests(SandboxRunbooks runbooks) throws Exception {
    Map<String, String> texts = new java.util.TreeMap<>();
    for (String member : List.of("m1", "m2", "m3"))
      texts.put(member, Files.readString(runbooks.sandbox.manifestPath(member)));
    return texts;
  }

  /** The directories the check copies etcdutl to (the hosts are this machine). */
  private static List<Path> etcdutlCopies() throws Exception {
    try (var listed = Files.list(Path.of("/var/tmp"))) {
      return listed
          .filter(p -> p.getFileName().toString().startsWith("etcd-runbooks-v2check."))
          .sorted()
          .toList();
    }
  }

  private static void awaitHealthy(SandboxRunbooks runbooks) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (!runbooks.state().members().stream().allMatch(MemberStatus::healthy)) {
      assertThat(System.nanoTime()).as("every member healthy within 30 s").isLessThan(deadline);
      TimeUnit.MILLISECONDS.sleep(100);
    }
  }
}
