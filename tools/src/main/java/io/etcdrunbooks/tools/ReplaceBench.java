package io.etcdrunbooks.tools;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.host.MemberHost;
import io.etcdrunbooks.activities.host.PlainProcessServiceManager;
import io.etcdrunbooks.activities.host.ServiceManager;
import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberResult;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberWorkflow;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import io.temporal.client.WorkflowClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The member-replacement half of {@code bench}: on one 3-member sandbox, a member is destroyed
 * (SIGKILL, data dir deleted) and brought back first by the bare etcdctl steps an operator would
 * type (member remove, member add, fresh data dir and settings, start, promote), then another
 * member is destroyed and an Alertmanager payload posted to the API, which starts the ReplaceMember
 * runbook (policy auto). Reports both times to a healthy 3-member cluster; the runbook's is the
 * MTTR incident automation gives.
 */
final class ReplaceBench {

  private static final Pattern INITIAL_CLUSTER =
      Pattern.compile("ETCD_INITIAL_CLUSTER=\"([^\"]*)\"");
  private static final Pattern ADDED_ID = Pattern.compile("Member\\s+([0-9a-f]+)\\s+added");

  private ReplaceBench() {}

  static boolean run(Path dir, ReleaseStore releases, String version) throws Exception {
    System.out.printf(
        "== bench: replace a destroyed member of 3, etcd %s, on 127.0.0.1%n", version);
    try (Sandbox sandbox =
            Sandbox.create(new SandboxSpec(dir.resolve("replace"), "bench", 3, version), releases);
        SshConnector ssh = new SshConnector()) {
      InventorySource inventory = new InventorySource(sandbox.inventoryFile());
      ClusterSpec cluster = inventory.get().cluster("bench");
      try (WriteProbe writes =
          new WriteProbe(
              cluster.members().stream().map(MemberSpec::clientUrl).toList(), "/bench/replace/")) {
        destroy(sandbox, cluster.member("m2"));
        Instant start = Instant.now();
        bareEtcdctl(
            cluster,
            cluster.member("m2"),
            ssh,
            releases.binDir(version).resolve("etcdctl"),
            version);
        Duration bare = Duration.between(start, Instant.now());
        System.out.printf(
            "   bare etcdctl steps: %6d ms (m2 back under its own name)%n", bare.toMillis());

        String token = UUID.randomUUID().toString();
        try (LocalRunbooks runbooks =
            LocalRunbooks.start(
                List.of("worker", "api"),
                Map.of(
                    "runbooks.inventory",
                    sandbox.inventoryFile().toString(),
                    "runbooks.task-queue",
                    "etcd-runbooks-bench-replace",
                    "runbooks.alerts.token-sha256",
                    sha256Hex(token),
                    "runbooks.alerts.default-policy",
                    "auto",
                    // the runbook's own time: no watching for a reboot before it acts
                    "runbooks.alerts.auto-down-minutes",
                    "0"))) {
          ApplicationContext context = runbooks.context();
          destroy(sandbox, cluster.member("m3"));
          Instant alerted = Instant.now();
          postAlert(context.getBean(EmbeddedServer.class).getURL().toString(), token, "m3");
          ReplaceMemberResult result =
              context
                  .getBean(WorkflowClient.class)
                  .newUntypedWorkflowStub(ReplaceMemberWorkflow.workflowId("bench"))
                  .getResult(5, TimeUnit.MINUTES, ReplaceMemberResult.class);
          Duration mttr = Duration.between(alerted, Instant.now());
          List<MemberSpec> members = inventory.get().cluster("bench").members();
          boolean healthy = members.stream().allMatch(m -> healthy(m.clientUrl()));
          WriteProbe.Report report = writes.stopAndVerify();
          System.out.printf(
              "   runbook from alert: %6d ms (MTTR: alert -> healthy 3-member cluster, postflight and apiservers"
                  + " included); members %s, all healthy: %s%n",
              mttr.toMillis(), result.members(), healthy);
          System.out.printf(
              "== runbook / bare = %.2fx; writes during both: %s%n",
              (double) mttr.toMillis() / bare.toMillis(), report);
          return healthy
              && report.lost() == 0
              && ReplaceMemberResult.REPLACED.equals(result.outcome());
        }
      }
    }
  }

  /** What an operator types, with only the waiting a script needs; no checks beyond /health. */
  private static void bareEtcdctl(
      ClusterSpec cluster, MemberSpec failed, SshConnector ssh, Path etcdctl, String version)
      throws Exception {
    String endpoints =
        cluster.members().stream()
            .filter(m -> !m.name().equals(failed.name()))
            .map(MemberSpec::clientUrl)
            .collect(Collectors.joining(","));
    boolean learner = EtcdVersion.parse(version).supportsLearners();
    String id =
        memberList(etcdctl, endpoints).stream()
            .filter(l -> l.contains(", " + failed.name() + ", "))
            .map(l -> l.substring(0, l.indexOf(',')))
            .findFirst()
            .orElseThrow();
    etcdctl(etcdctl, endpoints, "member", "remove", id);
    List<String> add =
        new ArrayList<>(List.of("member", "add", failed.name(), "--peer-urls=" + failed.peerUrl()));
    if (learner) add.add("--learner");
    // right after a removal etcd may answer "unhealthy cluster" for a moment: a script retries, as
    // an operator would
    String added = etcdctlUntilItWorks(etcdctl, endpoints, add.toArray(String[]::new));
    Matcher initial = INITIAL_CLUSTER.matcher(added);
    Matcher newId = ADDED_ID.matcher(added);
    if (!initial.find() || !newId.find())
      throw new IllegalStateException("unexpected member add output: " + added);
    MemberHost host = MemberHost.of(cluster, failed);
    String env = failed.serviceDir() + "/" + PlainProcessServiceManager.ENV_FILE;
    ssh.exec(
            host.target(),
            "rm -rf "
                + quote(failed.dataDir())
                + " && mkdir -m 700 "
                + quote(failed.dataDir())
                + " && sed -i -e 's/^ETCD_INITIAL_CLUSTER_STATE=.*/ETCD_INITIAL_CLUSTER_STATE=existing/' -e "
                + quote("s|^ETCD_INITIAL_CLUSTER=.*|ETCD_INITIAL_CLUSTER=" + initial.group(1) + "|")
                + " "
                + quote(env),
            Duration.ofSeconds(30))
        .orThrow(host.target(), "prepare " + failed.name());
    ServiceManager.of(cluster.service(), ssh).start(host);
    awaitHealthy(failed.clientUrl());
    if (learner) etcdctlUntilItWorks(etcdctl, endpoints, "member", "promote", newId.group(1));
    for (MemberSpec m : cluster.members()) awaitHealthy(m.clientUrl());
  }

  /** etcdctl again every 100 ms until it succeeds, for at most 2 minutes. */
  private static String etcdctlUntilItWorks(Path etcdctl, String endpoints, String... args)
      throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
    while (true) {
      try {
        return etcdctl(etcdctl, endpoints, args);
      } catch (IllegalStateException notYet) {
        if (Instant.now().isAfter(deadline)) throw notYet;
        TimeUnit.MILLISECONDS.sleep(100);
      }
    }
  }

  private static List<String> memberList(Path etcdctl, String endpoints) throws Exception {
    return List.of(etcdctl(etcdctl, endpoints, "member", "list").split("\n"));
  }

  private static String etcdctl(Path etcdctl, String endpoints, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(etcdctl.toString(), "--endpoints=" + endpoints));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("ETCDCTL_API", "3");
    Process process = builder.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
      throw new IllegalStateException(
          "etcdctl " + String.join(" ", args) + " failed: " + out.strip());
    }
    return out;
  }

  private static void destroy(Sandbox sandbox, MemberSpec member) throws Exception {
    sandbox.kill(member.name());
    try (var paths = Files.walk(Path.of(member.dataDir()))) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(p);
    }
  }

  private static void postAlert(String api, String token, String member) throws Exception {
    String body =
        "{\"version\":\"4\",\"status\":\"firing\",\"receiver\":\"bench\",\"groupLabels\":{},\"commonLabels\":{},"
            + "\"commonAnnotations\":{},\"alerts\":[{\"status\":\"firing\",\"labels\":{\"alertname\":\"EtcdMemberDown\","
            + "\"cluster\":\"bench\",\"member\":\""
            + member
            + "\"},\"annotations\":{},\"fingerprint\":\"bench\"}]}";
    HttpResponse<String> answer =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(api + "/api/v1/alerts/alertmanager"))
                    .header("Content-Type", "application/json")
                    .header("Authorization", "Bearer " + token)
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    if (answer.statusCode() != 200 || !answer.body().contains("\"started\"")) {
      throw new IllegalStateException(
          "the alert did not start the runbook: HTTP " + answer.statusCode() + " " + answer.body());
    }
  }

  private static void awaitHealthy(String clientUrl) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
    while (!healthy(clientUrl)) {
      if (Instant.now().isAfter(deadline))
        throw new IllegalStateException(clientUrl + " did not become healthy within 2 minutes");
      TimeUnit.MILLISECONDS.sleep(50);
    }
  }

  private static boolean healthy(String clientUrl) {
    try {
      HttpResponse<String> health =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(clientUrl + "/health"))
                      .timeout(Duration.ofSeconds(1))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      return health.statusCode() == 200 && health.body().contains("\"true\"");
    } catch (java.io.IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static String sha256Hex(String text) throws Exception {
    return HexFormat.of()
        .formatHex(
            MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
  }
}
