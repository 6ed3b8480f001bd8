package io.etcdrunbooks.worker;

import static io.etcdrunbooks.api.testing.TestTokens.ADMIN;
import static io.etcdrunbooks.api.testing.TestTokens.OPERATOR;
import static io.etcdrunbooks.api.testing.TestTokens.VIEWER;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.api.testing.TestTokens;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.InventoryLoader;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.worker.ApiSandbox.Answer;
import io.etcdrunbooks.workflows.backup.BackupScheduleRequest;
import io.etcdrunbooks.workflows.backup.BackupScheduleWorkflow;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.Progress;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionDescription;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.DoublePredicate;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Runbook control through the API on a real 3-member sandbox: one change per cluster (Temporal
 * refuses a second start of the cluster's change id, whatever its type), approval by an operator
 * and not a viewer, the per-cluster list read from Temporal, and cancel, which stops a runbook at a
 * safe point and never in the middle of a member.
 */
@RealEtcd
@Timeout(value = 6, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RunbookControlTest {

  /** Removed by JUnit after the class: the sandbox's etcd binaries and data take hundreds of MB. */
  @TempDir static Path classDir;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CHANGE = "change-sandbox";

  private ApiSandbox env;
  private Sandbox secure;
  private WorkflowClient client;
  private String api;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private final ListAppender<ILoggingEvent> audit = new ListAppender<>();
  private RealPrometheus prometheus;
  private Instant prometheusFrom;

  @BeforeAll
  void start() throws Exception {
    audit.start();
    ((Logger) LoggerFactory.getLogger("etcd-runbooks.audit")).addAppender(audit);
    env = ApiSandbox.start(classDir, "control", "3.4.23", Map.of(), VIEWER, OPERATOR, ADMIN);
    // a second cluster of one TLS member, whose certificates the dashboard's certificate panel
    // shows (TLS on the sandbox itself made this class's runbooks about twice as slow)
    secure =
        Sandbox.create(
            new SandboxSpec(classDir.resolve("secure"), "secure", 1, "3.5.30").withTls(true),
            SandboxRunbooks.releases());
    Inventory inventory = InventoryLoader.load(env.sandbox.inventoryFile());
    Map<String, ClusterSpec> clusters = new LinkedHashMap<>(inventory.clusters());
    clusters.put("secure", secure.cluster());
    InventoryLoader.write(
        new Inventory(inventory.releases(), clusters), env.sandbox.inventoryFile());
    client = env.client;
    api = env.api;
    prometheusFrom = Instant.now();
    prometheus =
        RealPrometheus.scraping(classDir.resolve("prometheus"), URI.create(api).getAuthority());
  }

  @AfterAll
  void stop() {
    if (prometheus != null) prometheus.close();
    ((Logger) LoggerFactory.getLogger("etcd-runbooks.audit")).detachAppender(audit);
    if (env != null) env.close();
    if (secure != null) secure.close();
  }

  /**
   * One change per cluster rests on the change id, so a changing runbook started elsewhere under
   * another id (the Temporal Web UI, the CLI, any client) refuses at once, before it discovers
   * anything or waits for approval. The next test starts an upgrade under change-sandbox, which
   * runs.
   */
  @Test
  @Order(0)
  void anUpgradeStartedUnderAnotherIdThanTheChangeIdFailsAtOnceNamingItAndTouchesNothing()
      throws Exception {
    String id = "web-ui-" + UUID.randomUUID();
    UpgradeClusterWorkflow upgrade =
        client.newWorkflowStub(
            UpgradeClusterWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(id)
                .setTaskQueue("etcd-runbooks-control")
                .build());
    WorkflowClient.start(
        upgrade::upgrade,
        UpgradeRequest.to("sandbox", "3.5.16", RunbookOptions.defaults().withApproval()));

    // without the check it would wait for approval here, and a second upgrade under change-sandbox
    // could start beside it
    assertThatThrownBy(
            () ->
                WorkflowStub.fromTyped(upgrade)
                    .getResult(30, TimeUnit.SECONDS, UpgradeResult.class))
        .isInstanceOf(WorkflowFailedException.class)
        .satisfies(
            e -> {
              assertThat(Failures.rootType(e)).isEqualTo(FailureType.WrongWorkflowId.name());
              assertThat(Failures.rootMessage(e))
                  .contains(
                      "UpgradeCluster of cluster 'sandbox' refused, nothing was touched",
                      "workflow id '" + id + "'",
                      "Start it again with workflow id " + CHANGE);
            });
    Progress progress = upgrade.progress();
    assertThat(progress.completed()).as("no step ran, not even discovery").isEmpty();
    assertThat(progress.phase()).isEqualTo(Phase.FAILED);
    for (var m : env.sandbox.cluster().members())
      assertThat(runningVersion(m.name())).isEqualTo("3.4.23");
  }

  @Test
  @Order(1)
  void anApprovalRunbookWaitsRefusesOtherChangesAndRunsOnceAnOperatorApproves() throws Exception {
    Answer started =
        post(
            "/api/v1/clusters/sandbox/upgrade",
            "{\"cluster\":\"sandbox\",\"targetVersion\":\"3.5.16\",\"requireApproval\":true}",
            OPERATOR);
    assertThat(started.status()).as(started.body().toString()).isEqualTo(202);
    assertThat(started.body().path("workflowId").asText()).isEqualTo(CHANGE);
    String runId = started.body().path("runId").asText();
    awaitProgress(CHANGE, p -> p.path("phase").asText().equals("AWAITING_APPROVAL"));

    // one change per cluster: another upgrade, a replacement or a restore is refused naming the
    // running upgrade
    for (String[] other :
        List.of(
            new String[] {"/api/v1/clusters/sandbox/upgrade", "{\"targetVersion\":\"3.5.30\"}"},
            new String[] {"/api/v1/clusters/sandbox/replace-member", "{\"failedMember\":\"m2\"}"},
            new String[] {
              "/api/v1/clusters/sandbox/restore",
              "{\"backupId\":\"latest\",\"acknowledgeDataLoss\":true}"
            })) {
      Answer refused = post(other[0], other[1], ADMIN);
      assertThat(refused.status()).as(other[0] + ": " + refused.body()).isEqualTo(409);
      assertThat(refused.body().path("workflowId").asText()).isEqualTo(CHANGE);
      assertThat(refused.body().path("message").asText())
          .contains("UpgradeCluster", "started by on-call", CHANGE, runId);
    }
    assertThat(client.newUntypedWorkflowStub(CHANGE).describe().getExecution().getRunId())
        .as("still the first run")
        .isEqualTo(runId);

    // a viewer may not approve; the runbook keeps waiting
    Answer viewerApproval = post("/api/v1/runbooks/" + CHANGE + "/approve", "{}", VIEWER);
    assertThat(viewerApproval.status()).isEqualTo(403);
    assertThat(viewerApproval.body().path("message").asText())
        .contains("role viewer", "needs operator");
    IdleRunbook.awaitWaitingForASignal(client, CHANGE);
    assertThat(
            get("/api/v1/runbooks/" + CHANGE, VIEWER)
                .body()
                .path("progress")
                .path("phase")
                .asText())
        .isEqualTo("AWAITING_APPROVAL");
    assertThat(env.sandbox.cluster().members())
        .allSatisfy(m -> assertThat(runningVersion(m.name())).isEqualTo("3.4.23"));
    // what the approval-wait alert reads: since when the run waits (Tally reports every 2 s)
    awaitMetric(
        "etcd_runbooks_phase_entered_timestamp_seconds",
        "phase=\"AWAITING_APPROVAL\"",
        since -> since > Instant.now().minus(Duration.ofMinutes(5)).getEpochSecond());

    // the cluster's list shows it running, started by the operator
    JsonNode list = get("/api/v1/clusters/sandbox/runbooks", VIEWER).body();
    assertThat(list.get(0).path("workflowId").asText()).isEqualTo(CHANGE);
    assertThat(list.get(0).path("status").asText()).isEqualTo("RUNNING");
    assertThat(list.get(0).path("type").asText()).isEqualTo("UpgradeCluster");
    assertThat(list.get(0).path("startedBy").asText()).isEqualTo("on-call");

    assertThat(post("/api/v1/runbooks/" + CHANGE + "/approve", "{}", OPERATOR).status())
        .isEqualTo(202);
    JsonNode done = awaitFinished(CHANGE);
    assertThat(done.path("status").asText()).as(done.toString()).isEqualTo("COMPLETED");
    for (var m : env.sandbox.cluster().members())
      assertThat(runningVersion(m.name())).isEqualTo("3.5.16");

    // the workflows module replays this history (approval, controls memo) against later code
    Files.writeString(
        Path.of("target", "recorded-approved-upgrade-history.json"),
        client.fetchHistory(CHANGE).toJson(true));
    WorkflowExecutionDescription description = client.newUntypedWorkflowStub(CHANGE).describe();
    List<?> controls = (List<?>) description.getMemo(RunbookWorkflow.CONTROLS_MEMO, List.class);
    assertThat(controls).hasSize(1).first().asString().endsWith("approve by on-call");
    assertThat(
            get("/api/v1/clusters/sandbox/runbooks", VIEWER)
                .body()
                .get(0)
                .path("controls")
                .get(0)
                .asText())
        .endsWith("approve by on-call");
    // the audit log: who, which cluster, which workflow, what, the answer
    assertThat(audit.list)
        .extracting(ILoggingEvent::getFormattedMessage)
        .anyMatch(
            line ->
                line.startsWith(
                    "who=on-call role=operator cluster=sandbox workflow="
                        + CHANGE
                        + " POST /api/v1/clusters/sandbox/upgrade -> 202"))
        .anyMatch(
            line ->
                line.startsWith(
                    "who=on-call role=operator cluster=sandbox workflow="
                        + CHANGE
                        + " POST /api/v1/runbooks/"
                        + CHANGE
                        + "/approve -> 202"))
        .anyMatch(
            line ->
                line.contains(
                    "who=dashboard refused POST /api/v1/runbooks/" + CHANGE + "/approve -> 403"));
  }

  @Test
  @Order(2)
  void cancellingARunbookThatWaitsForApprovalTouchesNothing() throws Exception {
    Answer started =
        post(
            "/api/v1/clusters/sandbox/upgrade",
            "{\"targetVersion\":\"3.5.30\",\"requireApproval\":true}",
            OPERATOR);
    assertThat(started.status()).isEqualTo(202);
    awaitProgress(CHANGE, p -> p.path("phase").asText().equals("AWAITING_APPROVAL"));
    assertThat(post("/api/v1/runbooks/" + CHANGE + "/cancel", "{}", VIEWER).status())
        .isEqualTo(403);

    assertThat(post("/api/v1/runbooks/" + CHANGE + "/cancel", "{}", OPERATOR).status())
        .isEqualTo(202);
    JsonNode view = awaitFinished(CHANGE);
    assertThat(view.path("status").asText()).isEqualTo("CANCELED");
    assertThat(view.path("progress").path("phase").asText()).isEqualTo("CANCELLED");
    assertThat(view.path("progress").path("message").asText())
        .contains("cancelled through the API by on-call");
    for (var m : env.sandbox.cluster().members())
      assertThat(runningVersion(m.name())).isEqualTo("3.5.16");
    assertThat(post("/api/v1/runbooks/" + CHANGE + "/cancel", "{}", OPERATOR).status())
        .as("nothing left to cancel")
        .isEqualTo(409);
    List<?> controls =
        (List<?>)
            client
                .newUntypedWorkflowStub(CHANGE)
                .describe()
                .getMemo(RunbookWorkflow.CONTROLS_MEMO, List.class);
    assertThat(controls)
        .singleElement()
        .asString()
        .endsWith("cancel by cancelled through the API by on-call");
  }

  @Test
  @Order(3)
  void aCancelDuringAMemberFinishesThatMemberThenStopsWithTheClusterHealthy() throws Exception {
    Answer started =
        post("/api/v1/clusters/sandbox/upgrade", "{\"targetVersion\":\"3.5.30\"}", OPERATOR);
    assertThat(started.status()).isEqualTo(202);
    JsonNode inHand =
        awaitProgress(
            CHANGE,
            p ->
                p.path("phase").asText().equals("UPGRADE") && !p.path("member").asText().isEmpty());
    String first = inHand.path("member").asText();
    assertThat(post("/api/v1/runbooks/" + CHANGE + "/cancel", "{}", OPERATOR).status())
        .isEqualTo(202);

    JsonNode view = awaitFinished(CHANGE);
    assertThat(view.path("status").asText()).as(view.toString()).isEqualTo("CANCELED");
    assertThat(runningVersion(first))
        .as("the member in hand when the cancel came is finished")
        .isEqualTo("3.5.30");
    List<String> versions = new ArrayList<>();
    for (var m : env.sandbox.cluster().members()) versions.add(runningVersion(m.name()));
    assertThat(versions)
        .as("stopped before the remaining members")
        .contains("3.5.16")
        .allMatch(v -> v.equals("3.5.16") || v.equals("3.5.30"));
    JsonNode status = get("/api/v1/clusters/sandbox/status", VIEWER).body();
    assertThat(status.path("members").findValuesAsText("healthy")).containsOnly("true");
    assertThat(view.path("progress").path("message").asText())
        .contains("cancelled", "before member");
    Files.writeString(
        Path.of("target", "recorded-cancelled-upgrade-history.json"),
        client.fetchHistory(CHANGE).toJson(true));
  }

  @Test
  @Order(4)
  void prometheusShowsTheRunbooksPhasesMemberRestartsAndTemporalsOwnMetricsAndHealthIsUp()
      throws Exception {
    // three upgrades ran above: one completed, two cancelled. Tally hands counters to Micrometer
    // every 2 s (timers at
    // once), so the last cancel may need a report to show
    Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
    String metrics = scrape();
    while (!metrics.contains("outcome=\"cancelled\"")
        || sample(metrics, "etcd_runbooks_runbooks_finished_total", "outcome=\"cancelled\"") < 2) {
      if (Instant.now().isAfter(deadline)) break;
      TimeUnit.MILLISECONDS.sleep(500);
      metrics = scrape();
    }
    Files.writeString(
        Path.of("target", "runbook-control-metrics.txt"),
        metrics); // kept for a failing run's reader
    // and one refused at once for its workflow id
    assertThat(
            sample(metrics, "etcd_runbooks_runbooks_started_total", "runbook=\"UpgradeCluster\""))
        .isEqualTo(4.0);
    assertThat(sample(metrics, "etcd_runbooks_runbooks_finished_total", "outcome=\"completed\""))
        .isEqualTo(1.0);
    assertThat(sample(metrics, "etcd_runbooks_runbooks_finished_total", "outcome=\"cancelled\""))
        .isEqualTo(2.0);
    assertThat(sample(metrics, "etcd_runbooks_phase_duration_seconds_count", "phase=\"UPGRADE\""))
        .isGreaterThanOrEqualTo(2.0);
    assertThat(
            sample(
                metrics,
                "etcd_runbooks_phase_duration_seconds_count",
                "phase=\"AWAITING_APPROVAL\""))
        .isEqualTo(2.0);
    // the first upgrade restarted each of the 3 members once, the third at least the member in hand
    assertThat(
            sample(
                metrics,
                "etcd_runbooks_member_restart_duration_seconds_count",
                "etcd_cluster=\"sandbox\""))
        .isGreaterThanOrEqualTo(4.0);
    assertThat(sample(metrics, "etcd_runbooks_member_step_duration_seconds_count", "member=\"m1\""))
        .isGreaterThan(0.0);
    // the sandbox's three members answer healthy (read in the background after a scrape)
    awaitMetric("etcd_runbooks_member_up", "etcd_cluster=\"sandbox\"", up -> up == 3.0);
    // every run above has ended: no phase is entered (the approval waits' series are gone once the
    // running runbooks are read again, at most 10 s after the last read)
    Instant phasesRead = Instant.now().plusSeconds(20);
    while (scrape().contains("etcd_runbooks_phase_entered_timestamp_seconds{")) {
      assertThat(Instant.now()).as("no phase entered any more").isBefore(phasesRead);
      TimeUnit.MILLISECONDS.sleep(500);
    }
    // durations as histograms with our buckets, up to hours (a phase waiting for an approval)
    assertThat(metrics).contains("etcd_runbooks_phase_duration_seconds_bucket{", "le=\"21600.0\"");
    assertThat(metrics.lines().filter(l -> l.startsWith("etcd_runbooks_")))
        .as("Micrometer's percentile buckets")
        .noneMatch(l -> l.contains("le=\"0.001048576\""));
    assertThat(PrometheusConventions.violations(metrics)).isEmpty();
    assertThat(PrometheusConventions.families(metrics))
        .containsKeys(
            "etcd_runbooks_runbooks_started_total",
            "etcd_runbooks_runbooks_finished_total",
            "etcd_runbooks_phase_duration_seconds",
            "etcd_runbooks_member_step_duration_seconds",
            "etcd_runbooks_member_restart_duration_seconds");
    assertThat(metrics)
        .contains(
            "etcd_cluster=\"sandbox\"",
            "temporal_workflow_completed_total",
            "temporal_activity_execution_latency");

    HttpResponse<String> health =
        http.send(
            HttpRequest.newBuilder(URI.create(api + "/health")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(health.statusCode()).as(health.body()).isEqualTo(200);
    JsonNode body = JSON.readTree(health.body());
    assertThat(body.path("status").asText()).isEqualTo("UP");
    assertThat(body.path("temporal").path("status").asText()).isEqualTo("UP");
    assertThat(body.path("worker").path("status").asText()).isEqualTo("UP");
  }

  @Test
  @Order(5)
  void aBackupStartedWithRequireApprovalWaitsForAnOperator() throws Exception {
    Answer started =
        post(
            "/api/v1/clusters/sandbox/backup",
            "{\"reason\":\"before the drain\",\"requireApproval\":true}",
            OPERATOR);
    assertThat(started.status()).as(started.text()).isEqualTo(202);
    String id = started.body().path("workflowId").asText();
    assertThat(id).isEqualTo("backup-sandbox");
    awaitProgress(id, p -> p.path("phase").asText().equals("AWAITING_APPROVAL"));
    IdleRunbook.awaitWaitingForASignal(client, id);
    assertThat(get("/api/v1/runbooks/" + id, VIEWER).body().path("progress").path("completed"))
        .as("nothing taken yet")
        .isEmpty();

    assertThat(post("/api/v1/runbooks/" + id + "/approve", "{}", OPERATOR).status()).isEqualTo(202);
    JsonNode done = awaitFinished(id);
    assertThat(done.path("status").asText()).as(done.toString()).isEqualTo("COMPLETED");
    assertThat(done.path("result").path("sha256").asText()).as(done.toString()).hasSize(64);
    assertThat(done.path("result").path("encrypted").asBoolean()).isTrue();
  }

  private String scrape() throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create(api + "/metrics")).GET().build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body();
  }

  /**
   * The JSON log format (what ETCD_RUNBOOKS_LOG_FORMAT=json selects: {@link LogEncoder}) on a real
   * backup: every line the runbook's workflow and activity code writes parses as JSON and carries
   * its date, workflow id, run id, cluster and phase.
   */
  @Test
  @Order(6)
  void everyLineARunbookWritesIsJsonWithItsWorkflowRunClusterAndPhase() throws Exception {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    LogEncoder encoder =
        new LogEncoder(); // logback.xml's, as ETCD_RUNBOOKS_LOG_FORMAT=json sets it
    encoder.setFormat("json");
    encoder.setContext(root.getLoggerContext());
    encoder.start();
    OutputStreamAppender<ILoggingEvent> json = new OutputStreamAppender<>();
    json.setContext(root.getLoggerContext());
    json.setEncoder(encoder);
    json.setOutputStream(out);
    json.start();
    Instant start = Instant.now().minusSeconds(1);
    String id;
    String runId;
    root.addAppender(json);
    try {
      Answer started =
          post("/api/v1/clusters/sandbox/backup", "{\"reason\":\"json logs\"}", OPERATOR);
      assertThat(started.status()).as(started.text()).isEqualTo(202);
      id = started.body().path("workflowId").asText();
      runId = started.body().path("runId").asText();
      JsonNode done = awaitFinished(id);
      assertThat(done.path("status").asText()).as(done.toString()).isEqualTo("COMPLETED");
    } finally {
      root.detachAppender(json);
      json.stop();
    }
    List<JsonNode> lines = new ArrayList<>();
    for (String line : out.toString(StandardCharsets.UTF_8).split("\n"))
      lines.add(JSON.readTree(line));
    List<JsonNode> runbook =
        lines.stream()
            .filter(
                l ->
                    l.path("loggerName").asText().startsWith("io.etcdrunbooks.workflows.")
                        || l.path("loggerName").asText().startsWith("io.etcdrunbooks.activities."))
            .toList();
    assertThat(runbook)
        .as("workflow and activity lines")
        .anyMatch(l -> l.path("loggerName").asText().contains(".workflows."))
        .anyMatch(l -> l.path("loggerName").asText().contains(".activities."));
    assertThat(runbook)
        .allSatisfy(
            l -> {
              JsonNode mdc = l.path("mdc");
              assertThat(mdc.path("WorkflowId").asText()).as(l.toString()).isEqualTo(id);
              assertThat(mdc.path("RunId").asText()).as(l.toString()).isEqualTo(runId);
              assertThat(mdc.path("etcd_cluster").asText()).as(l.toString()).isEqualTo("sandbox");
              assertThat(mdc.path("phase").asText()).as(l.toString()).isNotEmpty();
              assertThat(Instant.parse(l.path("date").asText())).as(l.toString()).isAfter(start);
            });
  }

  /**
   * Every panel of the shipped Grafana dashboard returns data from a real Prometheus that scraped
   * this class's worker every second while it ran the upgrades and backups above, a restore drill
   * of their newest and a backup schedule; the TLS member of the second cluster gives the
   * certificate panel its series. None is left out: a panel whose series the worker does not make
   * fails here.
   */
  @Test
  @Order(7)
  void everyDashboardPanelHasDataFromAPrometheusThatScrapedTheWorker() throws Exception {
    Answer drill = post("/api/v1/clusters/sandbox/restore-drill", "{}", OPERATOR);
    assertThat(drill.status()).as(drill.text()).isEqualTo(202);
    // a BackupSchedule loop (the embedded server has no Temporal Schedules), started as the Web UI
    // would, its first round an hour on: it says when, then waits
    long firstRound = Instant.now().plus(Duration.ofHours(1)).toEpochMilli();
    WorkflowClient.start(
        client.newWorkflowStub(
                BackupScheduleWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setWorkflowId("backup-loop-sandbox")
                    .setTaskQueue("etcd-runbooks-control")
                    .build())
            ::run,
        new BackupScheduleRequest("sandbox", 60, firstRound, 0));
    JsonNode drilled = awaitFinished(drill.body().path("workflowId").asText());
    assertThat(drilled.path("status").asText()).as(drilled.toString()).isEqualTo("COMPLETED");

    List<PrometheusTools.PanelQuery> queries = PrometheusTools.dashboardQueries();
    assertThat(queries).hasSizeGreaterThanOrEqualTo(15);
    // a rate over a minute needs two scrapes after the last runbook, a value read in the background
    // at a scrape (backups, drills) one more
    Instant deadline = Instant.now().plusSeconds(30);
    List<String> empty = panelsWithoutData(queries);
    while (!empty.isEmpty() && Instant.now().isBefore(deadline)) {
      TimeUnit.SECONDS.sleep(1);
      empty = panelsWithoutData(queries);
    }
    assertThat(empty)
        .as("panels without data (scrapes: %s)", prometheus.query("count_over_time(up[1h])"))
        .isEmpty();
    assertThat(post("/api/v1/runbooks/backup-loop-sandbox/cancel", "{}", OPERATOR).status())
        .isEqualTo(202);
  }

  /** The dashboard's queries that return nothing over the class's run so far. */
  private List<String> panelsWithoutData(List<PrometheusTools.PanelQuery> queries)
      throws Exception {
    Instant to = Instant.now();
    String range = Duration.between(prometheusFrom, to).toSeconds() + 1 + "s";
    List<String> empty = new ArrayList<>();
    for (PrometheusTools.PanelQuery q : queries) {
      if (prometheus.queryRange(q.evaluable(range), prometheusFrom, to).isEmpty())
        empty.add(q.panel() + ": " + q.evaluable(range));
    }
    return empty;
  }

  private void awaitMetric(String name, String label, DoublePredicate holds) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofSeconds(15));
    String metrics = scrape();
    while (metrics.lines().noneMatch(l -> l.startsWith(name + "{") && l.contains(label))
        || !holds.test(sample(metrics, name, label))) {
      assertThat(Instant.now()).as("%s{%s} in time", name, label).isBefore(deadline);
      TimeUnit.MILLISECONDS.sleep(300);
      metrics = scrape();
    }
  }

  /** The sum of the samples of a metric whose labels contain {@code label}. */
  private static double sample(String metrics, String name, String label) {
    double sum = 0;
    boolean found = false;
    for (String line : metrics.split("\n")) {
      if (line.startsWith(name + "{") && line.contains(label)) {
        sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
        found = true;
      }
    }
    if (!found)
      throw new AssertionError(
          "no "
              + name
              + " with "
              + label
              + " in the scrape:\n"
              + metrics
                  .lines()
                  .filter(l -> l.startsWith("etcd_runbooks"))
                  .reduce("", (a, b) -> a + b + "\n"));
    return sum;
  }

  private String runningVersion(String member) throws Exception {
    JsonNode status = get("/api/v1/clusters/sandbox/status", VIEWER).body();
    for (JsonNode m : status.path("members")) {
      if (m.path("name").asText().equals(member)) return m.path("serverVersion").asText();
    }
    throw new AssertionError("no member " + member + " in " + status);
  }

  private JsonNode awaitProgress(String id, Predicate<JsonNode> condition) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(2));
    while (Instant.now().isBefore(deadline)) {
      JsonNode view = get("/api/v1/runbooks/" + id, VIEWER).body();
      if (condition.test(view.path("progress"))) return view.path("progress");
      if (!"RUNNING".equals(view.path("status").asText()))
        throw new AssertionError("runbook ended first: " + view);
      TimeUnit.MILLISECONDS.sleep(100);
    }
    throw new AssertionError("progress of " + id + " never reached the condition");
  }

  private JsonNode awaitFinished(String id) throws Exception {
    Instant deadline = Instant.now().plus(Duration.ofMinutes(3));
    while (Instant.now().isBefore(deadline)) {
      WorkflowExecutionStatus status = client.newUntypedWorkflowStub(id).describe().getStatus();
      if (status != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING)
        return get("/api/v1/runbooks/" + id, VIEWER).body();
      TimeUnit.MILLISECONDS.sleep(300);
    }
    throw new AssertionError(id + " did not finish in 3 minutes");
  }

  private Answer get(String path, TestTokens.Token token) throws Exception {
    return env.get(path, token);
  }

  private Answer post(String path, String body, TestTokens.Token token) throws Exception {
    return env.post(path, body, token);
  }
}
