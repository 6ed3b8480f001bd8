package io.etcdrunbooks.worker;

import io.etcdrunbooks.activities.host.BinaryInstaller;
import io.etcdrunbooks.activities.host.MemberHost;
import io.etcdrunbooks.activities.host.ServiceManager;
import io.etcdrunbooks.activities.release.LocalDirReleaseStore;
import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import io.micronaut.context.ApplicationContext;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * {@code bench [--from=3.4.23] [--to=3.5.16] [--dir=DIR]}: one run, two fresh 3-member sandboxes of
 * the same version. On the first, a bare script does only stop / install / start / wait-for-health
 * per member (the same SSH and service-manager code the runbook uses, nothing else); on the second,
 * the UpgradeCluster runbook does the whole job (discover, preflight, backup, leader hand-over,
 * readiness, postflight) on the embedded Temporal. A client writes during each. Prints both times,
 * their ratio (target: at most 2x) and the longest write stall; exits 1 if an acknowledged write
 * was lost or the ratio misses its target.
 */
final class Bench {

  private static final double TARGET_RATIO = 2.0;

  private Bench() {}

  static int run(Map<String, String> options) throws Exception {
    String from = options.getOrDefault("from", "3.4.23");
    String to = options.getOrDefault("to", "3.5.16");
    Path dir =
        Path.of(
            options.getOrDefault(
                "dir", Files.createTempDirectory("etcd-runbooks-bench").toString()));
    ReleaseStore releases = new LocalDirReleaseStore(LocalDirReleaseStore.defaultDir());
    Demo.quietLogs();
    System.out.printf("== bench: 3 members, %s -> %s, on 127.0.0.1 (2 cores)%n", from, to);

    Measured bare;
    try (Sandbox sandbox =
            Sandbox.create(
                new SandboxSpec(dir.resolve("bare"), "bench", 3, from, Map.of()), releases);
        SshConnector ssh = new SshConnector();
        WriteProbe writes = new WriteProbe(clientUrls(sandbox.cluster()), "/bench/bare/")) {
      Instant start = Instant.now();
      bareScript(sandbox.cluster(), ssh, releases, to);
      bare = new Measured(Duration.between(start, Instant.now()), writes.stopAndVerify());
    }
    System.out.printf("   bare script: %6d ms, %s%n", bare.took().toMillis(), bare.writes());

    Measured runbook;
    try (Sandbox sandbox =
            Sandbox.create(
                new SandboxSpec(dir.resolve("runbook"), "bench", 3, from, Map.of()), releases);
        ApplicationContext context =
            Main.start(
                List.of("worker"),
                Map.of(
                    "runbooks.inventory", sandbox.inventoryFile().toString(),
                    "runbooks.task-queue", "etcd-runbooks-bench",
                    "temporal.address", "",
                    "temporal.embedded-port", Ports.free(),
                    "micronaut.server.port", Ports.free()));
        WriteProbe writes = new WriteProbe(clientUrls(sandbox.cluster()), "/bench/runbook/")) {
      UpgradeClusterWorkflow workflow =
          context
              .getBean(WorkflowClient.class)
              .newWorkflowStub(
                  UpgradeClusterWorkflow.class,
                  WorkflowOptions.newBuilder()
                      .setWorkflowId(UpgradeClusterWorkflow.workflowId("bench"))
                      .setTaskQueue("etcd-runbooks-bench")
                      .build());
      Instant start = Instant.now();
      UpgradeResult result =
          workflow.upgrade(UpgradeRequest.to("bench", to, RunbookOptions.defaults()));
      runbook = new Measured(Duration.between(start, Instant.now()), writes.stopAndVerify());
      System.out.printf(
          "   runbook:     %6d ms, %s; members %s%n",
          runbook.took().toMillis(), runbook.writes(), result.memberVersions());
    }

    double ratio = (double) runbook.took().toMillis() / bare.took().toMillis();
    boolean ok = ratio <= TARGET_RATIO && bare.writes().lost() == 0 && runbook.writes().lost() == 0;
    System.out.printf(
        "== runbook / bare = %.2fx (target <= %.1fx); longest write stall: bare %d ms, runbook %d ms;"
            + " acknowledged writes lost: bare %d, runbook %d -> %s%n",
        ratio,
        TARGET_RATIO,
        bare.writes().longestStallMillis(),
        runbook.writes().longestStallMillis(),
        bare.writes().lost(),
        runbook.writes().lost(),
        ok ? "OK" : "MISSED");
    boolean replaced =
        options.containsKey("skip-replace")
            || ReplaceBench.run(dir, releases, options.getOrDefault("replace-version", "3.5.30"));
    return ok && replaced ? 0 : 1;
  }

  private record Measured(Duration took, WriteProbe.Report writes) {}

  /**
   * What a hand-written script does: each member in inventory order, no backup, no checks, no
   * leader hand-over.
   */
  private static void bareScript(
      ClusterSpec cluster, SshConnector ssh, ReleaseStore releases, String version)
      throws Exception {
    ServiceManager service = ServiceManager.of(cluster.service(), ssh);
    BinaryInstaller installer = new BinaryInstaller(ssh);
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    for (MemberSpec member : cluster.members()) {
      MemberHost host = MemberHost.of(cluster, member);
      service.stop(host);
      installer.install(host, version, releases.binDir(version));
      service.start(host);
      awaitHealthy(http, member.clientUrl());
    }
  }

  private static void awaitHealthy(HttpClient http, String clientUrl) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
    while (Instant.now().isBefore(deadline)) {
      try {
        HttpResponse<String> health =
            http.send(
                HttpRequest.newBuilder(URI.create(clientUrl + "/health"))
                    .timeout(Duration.ofSeconds(1))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (health.statusCode() == 200 && health.body().contains("\"true\"")) return;
      } catch (java.io.IOException notYet) {
        // the member is still starting
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
    throw new IllegalStateException(clientUrl + " did not become healthy within 2 minutes");
  }

  private static List<String> clientUrls(ClusterSpec cluster) {
    return cluster.members().stream().map(MemberSpec::clientUrl).toList();
  }
}
