package io.etcdrunbooks.worker;

import static io.etcdrunbooks.api.testing.TestTokens.OPERATOR;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.activities.etcd.EtcdActivitiesImpl;
import io.etcdrunbooks.activities.host.HostActivitiesImpl;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.api.testing.TestTokens;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.ControlPlaneStandIns;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.Progress;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberResult;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberWorkflow;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import io.temporal.api.enums.v1.EventType;
import io.temporal.client.WorkflowClient;
import java.net.InetAddress;
import java.net.ServerSocket;
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
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Alertmanager payloads posted to a worker+api process (embedded Temporal) replace a destroyed
 * member of a real sandbox cluster with kube-apiserver stand-ins, as incident automation would at
 * night.
 */
@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ReplaceMemberAlertTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TOKEN = "alertmanager-test-token";

  @TempDir Path dir;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void aMemberDownAlertOn3_5ReplacesTheDestroyedMemberAndEveryApiServerIsHealthyAgain()
      throws Exception {
    try (Sandbox sandbox =
            Sandbox.create(
                new SandboxSpec(dir.resolve("sandbox"), "sandbox", 3, "3.5.30"),
                SandboxRunbooks.releases());
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(sandbox);
        ApplicationContext context = start(sandbox, "auto")) {
      InventorySource inventory = new InventorySource(sandbox.inventoryFile());
      Map<String, ClusterProbe.StoredKey> keys = writeKeys(inventory.get().cluster("sandbox"));
      destroy(sandbox, inventory.get().cluster("sandbox").member("m2"));
      assertThat(status(apiServers.standIn("cp-m1").healthUrl()))
          .as("an apiserver listing a dead member")
          .isEqualTo(503);

      Instant alerted = Instant.now();
      JsonNode answer = postAlert(context, "firing", "m2");
      assertThat(answer.path("results").get(0).path("outcome").asText()).isEqualTo("started");
      String id = answer.path("results").get(0).path("workflowId").asText();
      assertThat(id).isEqualTo(ReplaceMemberWorkflow.workflowId("sandbox"));

      ReplaceMemberResult result = resultOf(client(context), id, 3);
      Duration mttr = Duration.between(alerted, Instant.now());

      assertThat(result.outcome()).isEqualTo(ReplaceMemberResult.REPLACED);
      assertThat(result.joinedAsLearner()).isTrue();
      ClusterSpec cluster = inventory.get().cluster("sandbox");
      assertThat(cluster.members())
          .extracting(MemberSpec::name)
          .containsExactly("m1", "m2-r1", "m3");
      assertIntact(inventory, keys);
      List<String> clientUrls = cluster.members().stream().map(MemberSpec::clientUrl).toList();
      for (String host : apiServers.hosts()) {
        assertThat(Files.readString(apiServers.manifest(host)))
            .contains("--etcd-servers=" + String.join(",", clientUrls));
        assertThat(status(apiServers.standIn(host).healthUrl()))
            .as("%s /readyz", host)
            .isEqualTo(200);
      }
      System.out.println("alert -> healthy 3-member cluster: " + mttr.toMillis() + " ms");
    }
  }

  @Test
  void anAutomaticReplacementWatchesTheMemberAndEndsTouchingNothingWhenItComesBack()
      throws Exception {
    try (Sandbox sandbox =
            Sandbox.create(
                new SandboxSpec(dir.resolve("sandbox"), "sandbox", 3, "3.5.30"),
                SandboxRunbooks.releases());
        ApplicationContext context = start(sandbox, "auto", 1);
        SshConnector ssh = new SshConnector()) {
      InventorySource inventory = new InventorySource(sandbox.inventoryFile());
      String inventoryBefore = Files.readString(sandbox.inventoryFile());
      sandbox.kill("m3"); // its data dir stays: a reboot, not a lost disk

      JsonNode answer = postAlert(context, "firing", "m3");
      assertThat(answer.path("results").get(0).path("outcome").asText()).isEqualTo("started");
      String id = answer.path("results").get(0).path("workflowId").asText();
      ReplaceMemberWorkflow runbook =
          client(context).newWorkflowStub(ReplaceMemberWorkflow.class, id);
      Instant deadline = Instant.now().plusSeconds(60);
      while (runbook.progress() == null || runbook.progress().phase() != Phase.WAITING) {
        assertThat(Instant.now()).as("the runbook reaches WAITING").isBefore(deadline);
        TimeUnit.MILLISECONDS.sleep(200);
      }
      new HostActivitiesImpl(new ClusterTargets(inventory, ssh), SandboxRunbooks.releases())
          .startMember(new MemberRef("sandbox", "m3"));

      ReplaceMemberResult result = resultOf(client(context), id, 2);

      assertThat(result.outcome()).isEqualTo(ReplaceMemberResult.CANCELLED);
      assertThat(result.notes()).anyMatch(n -> n.contains("m3 answered healthy again"));
      assertThat(Files.readString(sandbox.inventoryFile())).isEqualTo(inventoryBefore);
      assertThat(
              client(context).fetchHistory(id).getEvents().stream()
                  .filter(e -> e.hasActivityTaskScheduledEventAttributes())
                  .map(e -> e.getActivityTaskScheduledEventAttributes().getActivityType().getName())
                  .toList())
          .as("nothing removed or joined")
          .doesNotContain("RemoveMember", "AddMember", "Prepare");
    }
  }

  @Test
  void
      theSameAlertThreeTimesStartsOneRunbookWhichAResolvedAlertCancelsBeforeApprovalAndApprovalLetsRun()
          throws Exception {
    try (Sandbox sandbox =
            Sandbox.create(
                new SandboxSpec(dir.resolve("sandbox"), "sandbox", 3, "3.4.23"),
                SandboxRunbooks.releases());
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(sandbox);
        ApplicationContext context = start(sandbox, "approval")) {
      InventorySource inventory = new InventorySource(sandbox.inventoryFile());
      Map<String, ClusterProbe.StoredKey> keys = writeKeys(inventory.get().cluster("sandbox"));
      destroy(sandbox, inventory.get().cluster("sandbox").member("m3"));
      String inventoryBefore = Files.readString(sandbox.inventoryFile());
      String id = ReplaceMemberWorkflow.workflowId("sandbox");
      WorkflowClient client = client(context);

      List<String> outcomes = new java.util.ArrayList<>();
      for (int i = 0; i < 3; i++) {
        JsonNode result = postAlert(context, "firing", "m3").path("results").get(0);
        outcomes.add(result.path("outcome").asText());
        assertThat(result.path("workflowId").asText()).isEqualTo(id);
      }
      assertThat(outcomes).containsExactly("started", "already-running", "already-running");
      assertThat(
              client.fetchHistory(id).getEvents().stream()
                  .filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED))
          .hasSize(1);
      awaitPhase(client, id, Phase.AWAITING_APPROVAL);

      assertThat(
              postAlert(context, "resolved", "m3").path("results").get(0).path("outcome").asText())
          .isEqualTo("resolved-signalled");
      ReplaceMemberResult cancelled = resultOf(client, id, 1);
      assertThat(cancelled.outcome()).isEqualTo(ReplaceMemberResult.CANCELLED);
      assertThat(Files.readString(sandbox.inventoryFile())).isEqualTo(inventoryBefore);
      try (ClusterProbe probe = new ClusterProbe(inventory.get().cluster("sandbox"))) {
        assertThat(probe.members())
            .extracting(m -> m.getName())
            .containsExactlyInAnyOrder("m1", "m2", "m3");
      }

      // the member is still down: the next firing alert starts a new run, which an operator
      // approves
      assertThat(postAlert(context, "firing", "m3").path("results").get(0).path("outcome").asText())
          .isEqualTo("started");
      awaitPhase(client, id, Phase.AWAITING_APPROVAL);
      assertThat(
              post(context, "/api/v1/runbooks/" + id + "/approve", "{}", OPERATOR.secret())
                  .statusCode())
          .isEqualTo(202);
      ReplaceMemberResult replaced = resultOf(client, id, 3);
      assertThat(replaced.outcome()).isEqualTo(ReplaceMemberResult.REPLACED);
      assertThat(inventory.get().cluster("sandbox").members())
          .extracting(MemberSpec::name)
          .containsExactly("m1", "m2", "m3-r1");
      assertIntact(inventory, keys);
      for (String host : apiServers.hosts()) {
        assertThat(status(apiServers.standIn(host).healthUrl()))
            .as("%s /readyz", host)
            .isEqualTo(200);
      }
    }
  }

  /**
   * The runbook's result; when it failed, an assertion error that quotes why, so CI's summary line
   * names the cause.
   */
  private static ReplaceMemberResult resultOf(WorkflowClient client, String id, int minutes)
      throws Exception {
    try {
      return client
          .newUntypedWorkflowStub(id)
          .getResult(minutes, TimeUnit.MINUTES, ReplaceMemberResult.class);
    } catch (io.temporal.client.WorkflowFailedException e) {
      throw new AssertionError(
          "runbook "
              + id
              + " failed: "
              + Failures.rootMessage(e)
              + "\nits last steps:\n"
              + lastSteps(client, id),
          e);
    }
  }

  /**
   * Scheduled steps with their event ids, and why each failed or timed-out step ended so (its last
   * attempt), from history.
   */
  private static String lastSteps(WorkflowClient client, String id) {
    StringBuilder steps = new StringBuilder();
    Map<Long, String> types = new java.util.HashMap<>();
    for (var event : client.fetchHistory(id).getEvents()) {
      if (event.hasActivityTaskScheduledEventAttributes()) {
        String type = event.getActivityTaskScheduledEventAttributes().getActivityType().getName();
        types.put(event.getEventId(), type);
        steps.append("  #").append(event.getEventId()).append(' ').append(type).append('\n');
      } else if (event.hasActivityTaskFailedEventAttributes()) {
        var failed = event.getActivityTaskFailedEventAttributes();
        steps
            .append("  #")
            .append(event.getEventId())
            .append(" failed ")
            .append(types.get(failed.getScheduledEventId()))
            .append(": ")
            .append(failed.getFailure().getMessage())
            .append('\n');
      } else if (event.hasActivityTaskTimedOutEventAttributes()) {
        var timedOut = event.getActivityTaskTimedOutEventAttributes();
        steps
            .append("  #")
            .append(event.getEventId())
            .append(" timed out ")
            .append(types.get(timedOut.getScheduledEventId()))
            .append(": ")
            .append(timedOut.getFailure().getMessage())
            .append('\n');
      }
    }
    return steps.toString();
  }

  private static void awaitPhase(WorkflowClient client, String id, Phase phase)
      throws InterruptedException {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(1));
    Progress progress = null;
    String queryFailure = "";
    while (Instant.now().isBefore(deadline)) {
      try {
        progress = client.newWorkflowStub(ReplaceMemberWorkflow.class, id).progress();
        if (progress.phase() == phase) return;
      } catch (io.temporal.client.WorkflowServiceException slowWorker) {
        queryFailure =
            "; last query failure: "
                + slowWorker.getCause(); // a busy worker may miss a query's deadline
      }
      TimeUnit.MILLISECONDS.sleep(200);
    }
    throw new AssertionError(
        "runbook " + id + " did not reach " + phase + "; progress " + progress + queryFailure);
  }

  /** Three healthy voting members, every key as before, hashkv equal on all. */
  private static void assertIntact(
      InventorySource inventory, Map<String, ClusterProbe.StoredKey> keys) throws Exception {
    EtcdActivitiesImpl etcd = new EtcdActivitiesImpl(ClusterTargets.etcdOnly(inventory));
    assertThat(etcd.discover(new ClusterRef("sandbox")).members())
        .hasSize(3)
        .allSatisfy(
            m -> {
              assertThat(m.healthy()).as("%s healthy: %s", m.name(), m.errors()).isTrue();
              assertThat(m.learner()).isFalse();
            });
    try (ClusterProbe probe = new ClusterProbe(inventory.get().cluster("sandbox"))) {
      assertThat(probe.dump(0)).containsAllEntriesOf(keys);
      Map<String, Long> hashes = probe.hashKvByMember(probe.revision());
      assertThat(hashes).hasSize(3);
      assertThat(hashes.values().stream().distinct()).hasSize(1);
    }
  }

  private static Map<String, ClusterProbe.StoredKey> writeKeys(ClusterSpec cluster)
      throws Exception {
    try (ClusterProbe probe = new ClusterProbe(cluster)) {
      probe.putManyUnordered("/registry/secrets/kube-system/s-", 200);
      return probe.dump(0);
    }
  }

  private static void destroy(Sandbox sandbox, MemberSpec member) throws Exception {
    sandbox.kill(member.name());
    try (var paths = Files.walk(Path.of(member.dataDir()))) {
      for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(p);
    }
  }

  private ApplicationContext start(Sandbox sandbox, String policy) throws Exception {
    return start(sandbox, policy, 0);
  }

  private ApplicationContext start(Sandbox sandbox, String policy, int autoDownMinutes)
      throws Exception {
    Path tokens = TestTokens.write(sandbox.dir().resolve("api-tokens.yaml"), OPERATOR);
    return Main.start(
        List.of("worker", "api"),
        Map.of(
            "runbooks.api.tokens-file", tokens.toString(),
            "runbooks.inventory", sandbox.inventoryFile().toString(),
            "runbooks.task-queue", "etcd-runbooks-replace-alert-test",
            "runbooks.alerts.token-sha256",
                HexFormat.of()
                    .formatHex(
                        MessageDigest.getInstance("SHA-256")
                            .digest(TOKEN.getBytes(StandardCharsets.UTF_8))),
            "runbooks.alerts.default-policy", policy,
            "runbooks.alerts.auto-down-minutes", String.valueOf(autoDownMinutes),
            "temporal.address", "",
            "temporal.embedded-port", freePort(),
            "micronaut.server.port", freePort()));
  }

  private static WorkflowClient client(ApplicationContext context) {
    return context.getBean(WorkflowClient.class);
  }

  private JsonNode postAlert(ApplicationContext context, String status, String member)
      throws Exception {
    String body =
        """
        {"version":"4","groupKey":"{}:{alertname=\\"EtcdMemberDown\\"}","status":"%s","receiver":"etcd-runbooks",
         "groupLabels":{"alertname":"EtcdMemberDown"},"commonLabels":{},"commonAnnotations":{},"externalURL":"http://am:9093",
         "alerts":[{"status":"%s","labels":{"alertname":"EtcdMemberDown","cluster":"sandbox","member":"%s","severity":"critical"},
           "annotations":{"summary":"etcd member down"},"startsAt":"2026-11-23T03:00:00Z","endsAt":"0001-01-01T00:00:00Z",
           "generatorURL":"http://prometheus/graph","fingerprint":"f00dfeed%s"}]}
        """
            .formatted(status, status, member, member);
    HttpResponse<String> response = post(context, "/api/v1/alerts/alertmanager", body, TOKEN);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private HttpResponse<String> post(
      ApplicationContext context, String path, String body, String token) throws Exception {
    String api = context.getBean(EmbeddedServer.class).getURL().toString();
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(api + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (token != null) request.header("Authorization", "Bearer " + token);
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static int status(String url) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
