package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdrunbooks.api.RunbookStarter;
import io.etcdrunbooks.api.testing.TestTokens;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.workflows.common.ApproveRequest;
import io.etcdrunbooks.workflows.common.CancelRequest;
import io.etcdrunbooks.workflows.common.ControlOutcome;
import io.etcdrunbooks.workflows.common.ControlRequest;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.Progress;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberRequest;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberResult;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberWorkflow;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionDescription;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.worker.WorkerFactory;
import io.temporal.workflow.Workflow;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The Alertmanager webhook and the replace-member / approve endpoints of a worker+api process over
 * a real sandbox. No accepted firing alert changes a sandbox member here (the end-to-end alert
 * tests do that): where a firing alert is posted for a healthy member, etcd's answer that it is
 * healthy keeps the runbook from starting, or a placeholder run of that member's workflow id on a
 * task queue of its own already holds the id; the last test kills a member, and the runbook its
 * alert starts waits for an approval that never comes and is cancelled.
 */
@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AlertmanagerEndpointTest {

  /** Removed by JUnit after the class: the sandbox's etcd binaries and data take hundreds of MB. */
  @TempDir static Path classDir;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ALERTS = "/api/v1/alerts/alertmanager";
  private static final TestTokens.Token OPERATOR = TestTokens.Token.of("ops", "operator");

  private final String token = "alert-token-" + UUID.randomUUID();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private Sandbox sandbox;
  private ApplicationContext context;
  private Instant testStarted = Instant.now();
  private final ListAppender<ILoggingEvent> audit = new ListAppender<>();
  private WorkflowClient client;
  private String api;

  @BeforeAll
  void start() throws Exception {
    audit.start();
    ((Logger) LoggerFactory.getLogger("etcd-runbooks.audit")).addAppender(audit);
    sandbox =
        Sandbox.create(
            new SandboxSpec(classDir.resolve("sandbox"), "sandbox", 3, "3.4.23", Map.of()),
            SandboxRunbooks.releases());
    java.nio.file.Path tokens =
        TestTokens.write(sandbox.dir().resolve("api-tokens.yaml"), OPERATOR);
    context =
        Main.start(
            List.of("worker", "api"),
            Map.of(
                "runbooks.api.tokens-file", tokens.toString(),
                "runbooks.inventory", sandbox.inventoryFile().toString(),
                "runbooks.task-queue", "etcd-runbooks-alerts-test",
                "runbooks.alerts.token-sha256", sha256Hex(token),
                "runbooks.alerts.member-down-alerts", "EtcdMemberDown,EtcdMemberUnreachable",
                "runbooks.alerts.default-policy", "approval",
                "temporal.address", "",
                "temporal.embedded-port", freePort(),
                "micronaut.server.port", freePort()));
    api = context.getBean(EmbeddedServer.class).getURL().toString();
    client = context.getBean(WorkflowClient.class);
  }

  @AfterAll
  void stop() {
    ((Logger) LoggerFactory.getLogger("etcd-runbooks.audit")).detachAppender(audit);
    if (context != null) context.close();
    if (sandbox != null) sandbox.close();
  }

  @Test
  @Order(1)
  void callsWithoutTheRightBearerTokenAreRefusedAndStartNothing() throws Exception {
    String firing = payload("firing", alert("firing", "EtcdMemberDown", "sandbox", "m1"));

    Answer none = post(ALERTS, firing, null);
    assertThat(none.status).isEqualTo(401);
    assertThat(none.message()).contains("Authorization: Bearer");
    assertThat(none.headers.firstValue("WWW-Authenticate")).hasValue("Bearer");

    Answer wrong = post(ALERTS, firing, "Bearer not-" + token);
    assertThat(wrong.status).isEqualTo(401);
    assertThat(wrong.message()).contains("does not match runbooks.alerts.token-sha256");
    assertThat(wrong.raw).doesNotContain("not-" + token);

    Answer basic = post(ALERTS, firing, "Basic " + token);
    assertThat(basic.status).isEqualTo(401);
    assertThat(basic.message()).contains("not 'Bearer <token>'");
    assertThat(basic.raw).doesNotContain(token);

    assertNoRunbook(ReplaceMemberWorkflow.workflowId("sandbox"));
  }

  @Test
  @Order(2)
  void payloadsThatAreNotAlertmanagerVersion4AreRefusedWith400() throws Exception {
    ObjectNode version3 =
        (ObjectNode)
            JSON.readTree(payload("firing", alert("firing", "EtcdMemberDown", "sandbox", "m1")));
    version3.put("version", "3");
    Answer old = post(ALERTS, version3.toString(), bearer());
    assertThat(old.status).isEqualTo(400);
    assertThat(old.message()).contains("unsupported payload version '3'", "version 4");

    Answer malformed = post(ALERTS, "{\"version\":\"4\",\"alerts\":[", bearer());
    assertThat(malformed.status).isEqualTo(400);
    assertThat(malformed.message()).contains("not valid JSON");

    Answer noAlerts = post(ALERTS, "{\"version\":\"4\",\"status\":\"firing\"}", bearer());
    assertThat(noAlerts.status).isEqualTo(400);
    assertThat(noAlerts.message()).contains("no 'alerts' list");

    assertNoRunbook(ReplaceMemberWorkflow.workflowId("sandbox"));
  }

  @Test
  @Order(3)
  void alertsThatNameNoMemberDownOrNoInventoryMemberAreIgnoredWithTheirReason() throws Exception {
    Answer answer =
        post(
            ALERTS,
            payload(
                "firing",
                alert("firing", "EtcdHighFsyncDurations", "sandbox", "m1"),
                alert("firing", "EtcdMemberDown", "nope", "m1"),
                alert("firing", "EtcdMemberDown", "sandbox", "m9"),
                alert("firing", "EtcdMemberDown", "sandbox", "127.0.0.1:1")),
            bearer());
    assertThat(answer.status).isEqualTo(200);
    JsonNode results = answer.body.path("results");
    assertThat(results).hasSize(4);
    assertThat(results.findValuesAsText("outcome")).containsOnly("ignored");
    assertThat(results.get(0).path("reason").asText())
        .contains("'EtcdHighFsyncDurations'", "member-down-alerts");
    assertThat(results.get(1).path("reason").asText()).contains("cluster='nope'", "[sandbox]");
    assertThat(results.get(2).path("reason").asText())
        .contains("member='m9'", "m1 (127.0.0.1:", "m2", "m3");
    assertThat(results.get(3).path("reason").asText()).contains("member='127.0.0.1:1'");
    for (JsonNode result : results) {
      assertThat(result.hasNonNull("workflowId")).as("%s", result).isFalse();
    }

    assertNoRunbook(ReplaceMemberWorkflow.workflowId("sandbox"));
    assertNoRunbook(ReplaceMemberWorkflow.workflowId("nope"));
  }

  @Test
  @Order(4)
  void aPrometheusInstanceLabelResolvesToTheMemberAndAResolvedAlertStartsNothing()
      throws Exception {
    String instance =
        authority(
            context
                .getBean(InventorySource.class)
                .get()
                .cluster("sandbox")
                .member("m2")
                .clientUrl());
    assertThat(instance).startsWith("127.0.0.1:");

    Answer answer =
        post(
            ALERTS,
            payload("resolved", alert("resolved", "EtcdMemberDown", "sandbox", instance)),
            bearer());
    assertThat(answer.status).isEqualTo(200);
    JsonNode result = answer.body.path("results").get(0);
    assertThat(result.path("member").asText()).isEqualTo("m2");
    assertThat(result.path("cluster").asText()).isEqualTo("sandbox");
    assertThat(result.path("alertname").asText()).isEqualTo("EtcdMemberDown");
    assertThat(result.path("outcome").asText()).isEqualTo("nothing-running");
    assertThat(result.path("workflowId").asText()).isEqualTo("change-sandbox");

    assertNoRunbook("change-sandbox");
  }

  @Test
  @Order(5)
  void repeatedDeliveriesMeetTheRunningRunbookAndAResolvedAlertSignalsIt() throws Exception {
    String id = ReplaceMemberWorkflow.workflowId("sandbox");
    WorkerFactory placeholders = WorkerFactory.newInstance(client);
    WorkflowExecution placeholder = holdWorkflowId(id, placeholders);
    try {
      String firing =
          payload(
              "firing",
              alert("firing", "EtcdMemberDown", "sandbox", "m3"),
              alert("firing", "EtcdMemberUnreachable", "sandbox", "m3"));
      for (int delivery = 1; delivery <= 2; delivery++) {
        Answer answer = post(ALERTS, firing, bearer());
        assertThat(answer.status).isEqualTo(200);
        assertThat(answer.body.path("results").findValuesAsText("outcome"))
            .containsExactly("already-running", "already-running");
        assertThat(answer.body.path("results").findValuesAsText("workflowId"))
            .containsExactly(id, id);
      }
      assertThat(client.newUntypedWorkflowStub(id).describe().getExecution().getRunId())
          .as("no new run was started")
          .isEqualTo(placeholder.getRunId());

      Answer resolved =
          post(
              ALERTS,
              payload("resolved", alert("resolved", "EtcdMemberDown", "sandbox", "m3")),
              bearer());
      assertThat(resolved.status).isEqualTo(200);
      assertThat(resolved.body.path("results").get(0).path("outcome").asText())
          .isEqualTo("resolved-signalled");
      awaitSignals(id, "alertResolved");

      Answer approved = post("/api/v1/runbooks/" + id + "/approve", "{}", OPERATOR.bearer());
      assertThat(approved.status).isEqualTo(202);
      awaitSignals(id, "alertResolved", "approveRun");
    } finally {
      terminate(id);
      placeholders.shutdownNow();
    }

    Answer afterwards =
        post(
            ALERTS,
            payload("resolved", alert("resolved", "EtcdMemberDown", "sandbox", "m3")),
            bearer());
    assertThat(afterwards.body.path("results").get(0).path("outcome").asText())
        .isEqualTo("nothing-running");
  }

  @Test
  @Order(6)
  void replaceMemberRequestsNamingNoInventoryMemberAreRefusedAndStartNothing() throws Exception {
    Answer unknownCluster =
        post(
            "/api/v1/clusters/nope/replace-member", "{\"failedMember\":\"m1\"}", OPERATOR.bearer());
    assertThat(unknownCluster.status).isEqualTo(404);
    assertThat(unknownCluster.message()).contains("no cluster 'nope'", "[sandbox]");

    Answer unknownMember =
        post(
            "/api/v1/clusters/sandbox/replace-member",
            "{\"failedMember\":\"m9\"}",
            OPERATOR.bearer());
    assertThat(unknownMember.status).isEqualTo(400);
    assertThat(unknownMember.message()).contains("no member 'm9'", "m1", "m2", "m3");

    Answer noMember = post("/api/v1/clusters/sandbox/replace-member", "{}", OPERATOR.bearer());
    assertThat(noMember.status).isEqualTo(400);
    assertThat(noMember.message()).contains("failedMember is required");

    Answer negative =
        post(
            "/api/v1/clusters/sandbox/replace-member",
            "{\"failedMember\":\"m1\",\"memberTimeoutSeconds\":-1}",
            OPERATOR.bearer());
    assertThat(negative.status).isEqualTo(400);

    assertThat(post("/api/v1/runbooks/no-such-runbook/approve", "{}", OPERATOR.bearer()).status)
        .isEqualTo(404);

    assertNoRunbook("change-nope");
    assertNoRunbook("change-sandbox");
  }

  @Test
  @Order(7)
  void aDryRunReplacementGetsAnIdOfItsOwnWithTheRequestAsSent() throws Exception {
    Answer started =
        post(
            "/api/v1/clusters/sandbox/replace-member",
            "{\"failedMember\":\"m1\",\"dryRun\":true,\"requireApproval\":true,\"memberTimeoutSeconds\":60}",
            OPERATOR.bearer());
    assertThat(started.status).isEqualTo(202);
    String id = started.body.path("workflowId").asText();
    try {
      assertThat(id).startsWith("change-sandbox-dry-run-");
      WorkflowStub stub = client.newUntypedWorkflowStub(id);
      assertThat(stub.describe().getWorkflowType()).isEqualTo(ReplaceMemberWorkflow.TYPE);
      JsonNode input =
          JSON.readTree(
              client
                  .fetchHistory(id)
                  .getEvents()
                  .get(0)
                  .getWorkflowExecutionStartedEventAttributes()
                  .getInput()
                  .getPayloads(0)
                  .getData()
                  .toStringUtf8());
      assertThat(input.path("cluster").asText()).isEqualTo("sandbox");
      assertThat(input.path("failedMember").asText()).isEqualTo("m1");
      assertThat(input.path("dryRun").asBoolean()).isTrue();
      assertThat(input.path("requireApproval").asBoolean()).isTrue();
      assertThat(input.path("memberTimeoutSeconds").asInt()).isEqualTo(60);
      assertThat(input.path("trigger").asText()).isEqualTo("api: ops");
    } finally {
      terminate(id);
    }
    assertNoRunbook("change-sandbox");
  }

  @Test
  @Order(8)
  void withoutAConfiguredHashTheEndpointIsDisabled() throws Exception {
    try (ApplicationContext apiOnly =
        Main.start(
            List.of("api"),
            Map.of(
                "runbooks.inventory", sandbox.inventoryFile().toString(),
                "temporal.address", "",
                "temporal.embedded-port", freePort(),
                "micronaut.server.port", freePort()))) {
      String url = apiOnly.getBean(EmbeddedServer.class).getURL().toString();
      Answer answer =
          send(
              request(
                  url + ALERTS,
                  payload("firing", alert("firing", "EtcdMemberDown", "sandbox", "m1")),
                  bearer()));
      assertThat(answer.status).isEqualTo(401);
      assertThat(answer.message()).contains("disabled until runbooks.alerts.token-sha256 is set");
      assertThatThrownBy(
              () ->
                  apiOnly
                      .getBean(WorkflowClient.class)
                      .newUntypedWorkflowStub("change-sandbox")
                      .describe())
          .isInstanceOf(WorkflowNotFoundException.class);
    }
  }

  @Test
  @Order(9)
  void firingAlertsForAHealthyMemberStartNothing() throws Exception {
    String firing = payload("firing", alert("firing", "EtcdMemberDown", "sandbox", "m2"));
    audit.list.clear();

    for (int delivery = 1; delivery <= 4; delivery++) {
      Answer answer = post(ALERTS, firing, bearer());
      assertThat(answer.status).isEqualTo(200);
      JsonNode result = answer.body.path("results").get(0);
      assertThat(result.path("outcome").asText())
          .as("delivery %d: %s", delivery, result)
          .isEqualTo("member-healthy");
      assertThat(result.hasNonNull("workflowId")).isFalse();
      assertThat(result.path("reason").asText())
          .contains(
              "member 'm2' of cluster 'sandbox' is healthy now (etcd 3.4.23",
              "\"failedMember\":\"m2\",\"force\":true");
    }

    assertNoRunbook(ReplaceMemberWorkflow.workflowId("sandbox"));
    assertThat(audit.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .hasSize(4)
        .allSatisfy(
            line ->
                assertThat(line)
                    .startsWith(
                        "who=alertmanager cluster=sandbox member=m2 workflow=- alert EtcdMemberDown")
                    .endsWith("-> member-healthy"));
  }

  @Test
  @Order(10)
  void anAlertRepeatedAfterItsRunbookEndedStartsNoOtherUntilItResolves() throws Exception {
    String id = ReplaceMemberWorkflow.workflowId("sandbox");
    sandbox.kill("m1");
    ObjectNode down = alert("firing", "EtcdMemberDown", "sandbox", "m1");
    String fingerprint = down.path("fingerprint").asText();
    String firing = payload("firing", down);
    try {
      Answer first = post(ALERTS, firing, bearer());
      assertThat(first.body.path("results").get(0).path("outcome").asText())
          .as(first.raw)
          .isEqualTo("started");
      String runId = client.newUntypedWorkflowStub(id).describe().getExecution().getRunId();

      // an operator cancels it while it waits for approval; Alertmanager goes on sending the alert,
      // still firing
      assertThat(post("/api/v1/runbooks/" + id + "/cancel", "{}", OPERATOR.bearer()).status)
          .isEqualTo(202);
      awaitClosed(id);
      for (int repeat = 1; repeat <= 2; repeat++) {
        Answer again = post(ALERTS, firing, bearer());
        assertThat(again.status).isEqualTo(200);
        JsonNode result = again.body.path("results").get(0);
        assertThat(result.path("outcome").asText())
            .as("repeat %d: %s", repeat, result)
            .isEqualTo("duplicate");
        assertThat(result.path("workflowId").asText()).isEqualTo(id);
        assertThat(result.path("reason").asText())
            .contains(
                "fingerprint " + fingerprint,
                "started runbook " + id + " (run " + runId + ")",
                "runbooks.alerts.dedupe-minutes (30)",
                "POST /api/v1/clusters/sandbox/replace-member");
      }
      WorkflowExecutionDescription last = client.newUntypedWorkflowStub(id).describe();
      assertThat(last.getExecution().getRunId()).as("no new run was started").isEqualTo(runId);
      assertThat(last.getStatus())
          .isNotEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);

      // once the alert has resolved, its next firing is a new outage, and the member is still down
      assertThat(
              post(ALERTS, payload("resolved", alertLike(down, "resolved")), bearer())
                  .body
                  .path("results")
                  .get(0)
                  .path("outcome")
                  .asText())
          .isEqualTo("nothing-running");
      Answer anew = post(ALERTS, firing, bearer());
      assertThat(anew.body.path("results").get(0).path("outcome").asText())
          .as(anew.raw)
          .isEqualTo("started");
      assertThat(client.newUntypedWorkflowStub(id).describe().getExecution().getRunId())
          .isNotEqualTo(runId);
    } finally {
      terminate(id);
    }
  }

  private void awaitClosed(String id) throws InterruptedException {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
    while (client.newUntypedWorkflowStub(id).describe().getStatus()
        == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
      assertThat(Instant.now()).as("%s still runs after its cancel", id).isBefore(deadline);
      TimeUnit.MILLISECONDS.sleep(200);
    }
  }

  /**
   * The same alert (labels, fingerprint) with another status, as Alertmanager sends its resolution.
   */
  private static ObjectNode alertLike(ObjectNode alert, String status) {
    ObjectNode copy = alert.deepCopy().put("status", status);
    return "resolved".equals(status) ? copy.put("endsAt", "2026-01-01T00:05:00Z") : copy;
  }

  /**
   * Starts a ReplaceMember run under {@code id} that holds the id and does nothing, on a task queue
   * of its own whose worker ({@link PlaceholderReplaceMember}) answers the progress query. Without
   * that worker the API's token check, which asks a runbook's progress for its cluster, waited a
   * minute for an answer at every call on the run.
   */
  private WorkflowExecution holdWorkflowId(String id, WorkerFactory placeholders) {
    String taskQueue = "placeholder-" + UUID.randomUUID();
    placeholders
        .newWorker(taskQueue)
        .registerWorkflowImplementationTypes(PlaceholderReplaceMember.class);
    placeholders.start();
    WorkflowStub stub =
        client.newUntypedWorkflowStub(
            ReplaceMemberWorkflow.TYPE,
            WorkflowOptions.newBuilder()
                .setWorkflowId(id)
                .setTaskQueue(taskQueue)
                .setMemo(Map.of(RunbookStarter.MEMBER, "m3", RunbookStarter.CLUSTER, "sandbox"))
                .build());
    return stub.start(
        ReplaceMemberRequest.onSameHost(
            "sandbox", "m3", true, "placeholder of AlertmanagerEndpointTest"));
  }

  /**
   * A ReplaceMember run that waits until it is terminated, touching nothing; signals only go into
   * its history.
   */
  public static final class PlaceholderReplaceMember implements ReplaceMemberWorkflow {
    @Override
    public ReplaceMemberResult replace(ReplaceMemberRequest request) {
      Workflow.await(() -> false);
      return null;
    }

    @Override
    public Progress progress() {
      return new Progress(
          TYPE,
          "sandbox",
          Phase.AWAITING_APPROVAL,
          "",
          "m3",
          false,
          List.of(),
          "placeholder",
          List.of(),
          "",
          0);
    }

    @Override
    public void alertResolved() {}

    @Override
    public void pause(String by) {}

    @Override
    public void resume(String by) {}

    @Override
    public void approve(String by) {}

    @Override
    public ControlOutcome approveRun(ApproveRequest request) {
      return new ControlOutcome("approve", request.by(), Phase.AWAITING_APPROVAL, "placeholder");
    }

    @Override
    public void validateApproveRun(ApproveRequest request) {}

    @Override
    public ControlOutcome pauseRun(ControlRequest request) {
      return null;
    }

    @Override
    public void validatePauseRun(ControlRequest request) {}

    @Override
    public ControlOutcome resumeRun(ControlRequest request) {
      return null;
    }

    @Override
    public void validateResumeRun(ControlRequest request) {}

    @Override
    public ControlOutcome cancelRun(CancelRequest request) {
      return null;
    }

    @Override
    public void validateCancelRun(CancelRequest request) {}
  }

  /** Ends a run this test started; one that already finished on its own is fine. */
  private void terminate(String id) {
    try {
      client.newUntypedWorkflowStub(id).terminate("test done");
    } catch (WorkflowNotFoundException e) {
      // finished already
    }
  }

  /**
   * The run's history holds these signals, in order; a signal that comes while its worker is busy
   * is written after.
   */
  private void awaitSignals(String id, String... expected) throws InterruptedException {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(10));
    while (!signalsReceived(id).equals(List.of(expected)) && Instant.now().isBefore(deadline)) {
      TimeUnit.MILLISECONDS.sleep(50);
    }
    assertThat(signalsReceived(id)).containsExactly(expected);
  }

  /** The signals and the accepted updates in the run's history, by name. */
  private List<String> signalsReceived(String id) {
    return client.fetchHistory(id).getEvents().stream()
        .filter(
            e ->
                e.hasWorkflowExecutionSignaledEventAttributes()
                    || e.hasWorkflowExecutionUpdateAcceptedEventAttributes())
        .map(
            e ->
                e.hasWorkflowExecutionSignaledEventAttributes()
                    ? e.getWorkflowExecutionSignaledEventAttributes().getSignalName()
                    : e.getWorkflowExecutionUpdateAcceptedEventAttributes()
                        .getAcceptedRequest()
                        .getInput()
                        .getName())
        .toList();
  }

  /** No run of the id, or only one that an earlier test started and that has ended. */
  private void assertNoRunbook(String id) {
    try {
      WorkflowExecutionDescription run = client.newUntypedWorkflowStub(id).describe();
      assertThat(run.getStatus())
          .as("run of %s", id)
          .isNotEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
      assertThat(run.getStartTime()).as("start of the last run of %s", id).isBefore(testStarted);
    } catch (WorkflowNotFoundException e) {
      // never started: fine
    }
  }

  @BeforeEach
  void noteStart() {
    testStarted = Instant.now();
  }

  private static String payload(String status, ObjectNode... alerts) {
    ObjectNode payload =
        JSON.createObjectNode()
            .put("version", "4")
            .put("groupKey", "{}:{alertname=\"EtcdMemberDown\"}")
            .put("truncatedAlerts", 0)
            .put("status", status)
            .put("receiver", "etcd-runbooks")
            .put("externalURL", "http://alertmanager.example:9093");
    payload.putObject("groupLabels");
    payload.putObject("commonLabels");
    payload.putObject("commonAnnotations");
    payload.putArray("alerts").addAll(List.of(alerts));
    return payload.toString();
  }

  private static ObjectNode alert(String status, String alertname, String cluster, String member) {
    ObjectNode alert = JSON.createObjectNode().put("status", status);
    alert
        .putObject("labels")
        .put("alertname", alertname)
        .put("cluster", cluster)
        .put("member", member)
        .put("job", "etcd");
    alert.putObject("annotations").put("summary", "etcd member down");
    return alert
        .put("startsAt", "2026-01-01T00:00:00Z")
        .put("endsAt", "firing".equals(status) ? "0001-01-01T00:00:00Z" : "2026-01-01T00:05:00Z")
        .put("generatorURL", "http://prometheus.example:9090/graph")
        .put("fingerprint", UUID.randomUUID().toString().substring(0, 16));
  }

  private String bearer() {
    return "Bearer " + token;
  }

  private record Answer(int status, String raw, JsonNode body, java.net.http.HttpHeaders headers) {
    String message() {
      return body.path("message").asText();
    }
  }

  private Answer post(String path, String body, String authorization) throws Exception {
    return send(request(api + path, body, authorization));
  }

  private static HttpRequest request(String url, String body, String authorization) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(url))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return request.build();
  }

  private Answer send(HttpRequest request) throws Exception {
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    String body = response.body() == null ? "" : response.body();
    return new Answer(
        response.statusCode(),
        body,
        body.isBlank() ? JSON.nullNode() : JSON.readTree(body),
        response.headers());
  }

  private static String authority(String url) {
    URI uri = URI.create(url);
    return uri.getHost() + ":" + uri.getPort();
  }

  private static String sha256Hex(String value) throws Exception {
    return HexFormat.of()
        .formatHex(
            MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8)));
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}
