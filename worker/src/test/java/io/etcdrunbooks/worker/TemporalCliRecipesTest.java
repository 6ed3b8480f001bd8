package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdrunbooks.api.testing.TestTokens;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.TemporalDevServer;
import io.etcdrunbooks.workflows.RunbookCatalog;
import io.etcdrunbooks.workflows.RunbookDefinition;
import io.etcdrunbooks.workflows.backup.BackupScheduleWorkflow;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.Progress;
import io.etcdrunbooks.workflows.common.Runbook;
import io.etcdrunbooks.workflows.common.RunbookPayloads;
import io.etcdrunbooks.workflows.maintenance.MaintenanceScheduleWorkflow;
import io.etcdrunbooks.workflows.maintenance.MaintenanceWorkflow;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.failure.v1.Failure;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkflowExecutionHistory;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * docs/temporal-cli.md's recipes, run with the real Temporal CLI against {@code temporal server
 * start-dev} and the product's worker on one real 3-member sandbox: every {@code temporal workflow
 * start} of the page (its cluster and task queue replaced, and each new member it places on a host
 * of its own placed on a new host of the sandbox), each run checked to have taken its JSON (the
 * input it holds reads strictly into the runbook's request record, as the page wrote it) and to
 * have reached the runbook's own logic: completed, failed with one of the runbook's own failure
 * types (never WrongWorkflowId: the page's id is the one the runbook requires), or waiting for an
 * approval or its next round, never a failed workflow task. A run waiting for approval is approved
 * with the page's signal where its change is quick and harmless on the sandbox, else cancelled with
 * the page's cancel; the follow, pause/resume and list recipes run on the first.
 */
@RealEtcd
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class TemporalCliRecipesTest {

  private static final String CLUSTER = "sandbox";
  private static final String TASK_QUEUE = "etcd-runbooks-cli-recipes";

  /** Approved here: a maintenance of the small sandbox takes a moment and changes no data. */
  private static final Set<String> APPROVED_HERE = Set.of(MaintenanceWorkflow.TYPE);

  /** Runbooks that run until cancelled, waiting (phase WAITING) between rounds. */
  private static final Set<String> SCHEDULES =
      Set.of(BackupScheduleWorkflow.TYPE, MaintenanceScheduleWorkflow.TYPE);

  /** The API's reading of bodies, as far as Jackson's own switches go. */
  private static final ObjectMapper STRICT =
      JsonMapper.builder()
          .enable(
              DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES,
              DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
          .build();

  private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(90);

  @TempDir Path dir;

  @Test
  void everyStartRecipeRunsItsRunbookWithTheRealCli() throws Exception {
    CliRecipes recipes = CliRecipes.read(CLUSTER, TASK_QUEUE);
    assertThat(recipes.starts().stream().map(CliRecipes.Start::type).distinct())
        .as("runbooks with a temporal workflow start recipe in %s", CliRecipes.DOC)
        .containsAll(RunbookCatalog.all().stream().map(RunbookDefinition::type).toList());
    for (CliRecipes.Start start : recipes.starts()) {
      strictly(start.input(), definition(start).request());
    }

    Instant began = Instant.now();
    try (TemporalDevServer temporal = TemporalDevServer.start(dir.resolve("temporal"));
        ApiSandbox api =
            ApiSandbox.onRealServer(dir, temporal, TASK_QUEUE, "3.5.16", TestTokens.OPERATOR)) {
      Runs runs = new Runs(new TemporalCli(temporal.address()), recipes, api);
      // dry runs hold ids of their own: they run beside the real runs, which share change-sandbox
      ExecutorService beside = Executors.newSingleThreadExecutor();
      List<Future<String>> dryRuns = new ArrayList<>();
      List<String> outcomes = new ArrayList<>();
      try {
        for (CliRecipes.Start start : recipes.starts()) {
          if (start.input().contains("\"dryRun\":true")) {
            dryRuns.add(beside.submit(() -> runs.run(start)));
          } else {
            outcomes.add(runs.run(start));
          }
        }
        Instant misspeltBegan = Instant.now();
        runs.aMisspeltFieldOrANullFailsTheRunAtOnce();
        outcomes.add(
            "a misspelt field and a null: both runs failed at once (%.1f s)"
                .formatted(Duration.between(misspeltBegan, Instant.now()).toMillis() / 1000.0));
        for (Future<String> dryRun : dryRuns) outcomes.add(dryRun.get());
      } finally {
        beside.shutdownNow();
      }
      System.out.printf(
          "TemporalCliRecipesTest: %d start recipes in %.1f s (server, sandbox and worker"
              + " included)%n  %s%n",
          recipes.starts().size(),
          Duration.between(began, Instant.now()).toMillis() / 1000.0,
          String.join("\n  ", outcomes));
      assertThat(runs.followed).as("the follow recipes ran on a run awaiting approval").isTrue();
      assertThat(runs.approved).as("the approve recipe ran").isTrue();
    }
  }

  /** The page's recipes run against one server, worker and sandbox. */
  private static final class Runs {
    private final TemporalCli cli;
    private final CliRecipes recipes;
    private final ApiSandbox api;
    private final Map<String, MemberPlacement> newHosts = new ConcurrentHashMap<>();
    volatile boolean followed;
    volatile boolean approved;

    Runs(TemporalCli cli, CliRecipes recipes, ApiSandbox api) {
      this.cli = cli;
      this.recipes = recipes;
      this.api = api;
    }

    /** One start recipe run and judged; a line saying how it ended. */
    String run(CliRecipes.Start asWritten) throws Exception {
      Instant runBegan = Instant.now();
      CliRecipes.Start start = onSandboxHosts(asWritten, api.sandbox, newHosts);
      RunbookDefinition<?> definition = definition(start);
      cli.run(start.command());
      String id = start.workflowId();
      assertThat(strictly(startInput(api.client, id), definition.request()))
          .as("%s's input, as the run holds it", id)
          .isEqualTo(strictly(start.input(), definition.request()));

      Settled settled = settle(api.client, id, start.type());
      if (settled.phase() == Phase.AWAITING_APPROVAL && APPROVED_HERE.contains(start.type())) {
        String plan = progress(api.client, id).map(Progress::approvalPlan).orElse("");
        assertThat(plan).as("%s shows the plan it waits with", id).isNotBlank();
        cli.run(
            CliRecipes.on(recipes.control(Runbook.APPROVE_UPDATE), id)
                .replace("<approvalPlan>", plan));
        settled = settle(api.client, id, start.type());
        assertThat(settled.status()).as("%s after approve", id).isEqualTo("COMPLETED");
        assertThat(cli.run(CliRecipes.on(recipes.first("temporal workflow result"), id)))
            .contains("COMPLETED");
        approved = true;
      } else if (settled.phase() == Phase.AWAITING_APPROVAL || settled.phase() == Phase.WAITING) {
        if (!followed && settled.phase() == Phase.AWAITING_APPROVAL) {
          follow(cli, recipes, api.client, id, start.type());
          followed = true;
        }
        cli.run(CliRecipes.on(recipes.first("temporal workflow cancel"), id));
        Settled cancelled = settle(api.client, id, start.type());
        assertThat(cancelled.status()).as("%s after cancel", id).isEqualTo("CANCELED");
        settled = new Settled(settled.status() + " -> cancelled", settled.phase(), "", "");
      }
      if (settled.status().equals("FAILED")) {
        assertThat(settled.failureType())
            .as("%s's failure type: %s", id, settled.message())
            .isIn(definition.failures().stream().map(FailureType::name).toList())
            .isNotEqualTo(FailureType.WrongWorkflowId.name());
      } else {
        assertThat(settled.status())
            .as("%s: %s", id, settled.message())
            .isIn("COMPLETED", "RUNNING -> cancelled");
      }
      return "%-22s %-38s %5.1f s  %s %s %s"
          .formatted(
              start.type(),
              id,
              Duration.between(runBegan, Instant.now()).toMillis() / 1000.0,
              settled.status(),
              settled.failureType(),
              abbreviated(settled.message()));
    }

    /**
     * What the page says of a misspelt field ({@code "dryrun"}) and of a null for a yes/no: the run
     * fails at once, naming the field, before its first step; no workflow task is retried.
     */
    void aMisspeltFieldOrANullFailsTheRunAtOnce() throws Exception {
      CliRecipes.Start dryRun =
          recipes.starts().stream()
              .filter(s -> s.input().contains("\"dryRun\":true"))
              .findFirst()
              .orElseThrow();
      Map<String, String> typos =
          Map.of("-misspelt", "\"dryrun\":true", "-null", "\"dryRun\":null");
      for (Map.Entry<String, String> typo : typos.entrySet()) {
        String id = dryRun.workflowId() + typo.getKey();
        cli.run(CliRecipes.on(dryRun.command().replace("\"dryRun\":true", typo.getValue()), id));
        Settled settled = settle(api.client, id, dryRun.type());
        assertThat(settled.status()).as(id).isEqualTo("FAILED");
        assertThat(settled.failureType()).isEqualTo(RunbookPayloads.InputRejected.class.getName());
        assertThat(settled.message())
            .contains(typo.getValue().startsWith("\"dryrun") ? "'dryrun'" : "'dryRun'");
        assertThat(api.client.fetchHistory(id).getEvents())
            .noneMatch(e -> e.getEventType() == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED);
      }
    }
  }

  /**
   * The page's query, describe, list, pause and resume recipes on a run that waits for approval.
   */
  private static void follow(
      TemporalCli cli, CliRecipes recipes, WorkflowClient client, String id, String type)
      throws Exception {
    assertThat(cli.run(CliRecipes.on(recipes.first("temporal workflow query"), id)))
        .contains(Phase.AWAITING_APPROVAL.name());
    assertThat(cli.run(CliRecipes.on(recipes.first("temporal workflow describe"), id)))
        .contains(type, "EtcdRunbookPhase", Phase.AWAITING_APPROVAL.name());
    assertThat(cli.run(CliRecipes.on(recipes.first("temporal workflow show"), id)))
        .contains("WorkflowExecutionStarted");
    for (String list : recipes.all("temporal workflow list")) {
      boolean findsThisRun =
          list.contains("ExecutionStatus='Running'")
              || list.contains("EtcdRunbookPhase='AWAITING_APPROVAL'");
      String output = cli.run(list);
      Instant deadline = Instant.now().plusSeconds(15);
      while (findsThisRun && !output.contains(id) && Instant.now().isBefore(deadline)) {
        TimeUnit.MILLISECONDS.sleep(250); // the visibility store follows the run by a moment
        output = cli.run(list);
      }
      if (findsThisRun) assertThat(output).as(list).contains(id);
    }
    cli.run(CliRecipes.on(recipes.control(Runbook.PAUSE_UPDATE), id));
    awaitProgress(client, id, Progress::paused, "paused after the pauseRun update");
    cli.run(CliRecipes.on(recipes.control(Runbook.RESUME_UPDATE), id));
    awaitProgress(client, id, p -> !p.paused(), "resumed after the resumeRun update");
  }

  /** How a run stands once it has ended or waits for someone. */
  private record Settled(String status, Phase phase, String failureType, String message) {}

  /** Until the run has ended, or waits for an approval or (a schedule) for its next round. */
  private static Settled settle(WorkflowClient client, String id, String type) throws Exception {
    Instant deadline = Instant.now().plus(SETTLE_TIMEOUT);
    while (Instant.now().isBefore(deadline)) {
      WorkflowExecutionHistory history = client.fetchHistory(id);
      HistoryEvent last = history.getLastEvent();
      if (last.getEventType() == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED) {
        return new Settled("TERMINATED", null, "", "");
      }
      switch (last.getEventType()) {
        case EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
          return new Settled("COMPLETED", null, "", "");
        case EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED:
          return new Settled("CANCELED", null, "", "");
        case EVENT_TYPE_WORKFLOW_EXECUTION_FAILED:
          Failure failure = last.getWorkflowExecutionFailedEventAttributes().getFailure();
          // FleetUpgrade's refusal stays inside the ActivityFailure of the step that refused
          while (!failure.hasApplicationFailureInfo() && failure.hasCause()) {
            failure = failure.getCause();
          }
          return new Settled(
              "FAILED", null, failure.getApplicationFailureInfo().getType(), failure.getMessage());
        case EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT:
        case EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW:
          fail("%s ended %s", id, last.getEventType());
          break;
        default:
          // a query waits while no workflow task has completed: ask only after the first
          boolean answers =
              history.getEvents().stream()
                  .anyMatch(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED);
          Phase phase = answers ? progress(client, id).map(Progress::phase).orElse(null) : null;
          if (phase == Phase.AWAITING_APPROVAL
              || (phase == Phase.WAITING && SCHEDULES.contains(type))) {
            return new Settled("RUNNING", phase, "", "");
          }
      }
      TimeUnit.MILLISECONDS.sleep(100);
    }
    // a workflow task that fails over and over (an input that does not decode used to) ends here
    String lastTaskFailure =
        client.fetchHistory(id).getEvents().stream()
            .filter(e -> e.getEventType() == EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED)
            .reduce((first, second) -> second)
            .map(
                e ->
                    "; its last failed workflow task: "
                        + withCauses(e.getWorkflowTaskFailedEventAttributes().getFailure()))
            .orElse("");
    throw new AssertionError(
        id + " neither ended nor waited within " + SETTLE_TIMEOUT + lastTaskFailure);
  }

  /** A failure's message and its causes'. */
  private static String withCauses(Failure failure) {
    StringBuilder messages = new StringBuilder(failure.getMessage());
    for (Failure cause = failure; cause.hasCause(); ) {
      cause = cause.getCause();
      messages.append(" <- ").append(cause.getMessage());
    }
    return messages.toString();
  }

  private static void awaitProgress(
      WorkflowClient client, String id, Predicate<Progress> until, String what) throws Exception {
    Instant deadline = Instant.now().plusSeconds(10);
    while (Instant.now().isBefore(deadline)) {
      if (progress(client, id).filter(until).isPresent()) return;
      TimeUnit.MILLISECONDS.sleep(100);
    }
    fail("%s not %s within 10 s", id, what);
  }

  /** The run's progress; empty while its first workflow task has not run. */
  private static Optional<Progress> progress(WorkflowClient client, String id) {
    try {
      return Optional.ofNullable(
          client.newUntypedWorkflowStub(id).query("progress", Progress.class));
    } catch (RuntimeException notYet) {
      return Optional.empty();
    }
  }

  /**
   * The recipe with each new member the page places on a host of its own ({@code
   * "host":"10.0.0.4"}) placed on a new host of the sandbox instead, as the page's cluster name is
   * replaced.
   */
  private static CliRecipes.Start onSandboxHosts(
      CliRecipes.Start start, Sandbox sandbox, Map<String, MemberPlacement> newHosts)
      throws Exception {
    JsonNode input = ApiSandbox.JSON.readTree(start.input());
    List<ObjectNode> placements = new ArrayList<>();
    input.findParents("host").forEach(p -> placements.add((ObjectNode) p));
    if (placements.isEmpty()) return start;
    for (ObjectNode placement : placements) {
      String name = placement.path("name").asText();
      MemberPlacement onSandbox =
          newHosts.computeIfAbsent(name, n -> sandbox.addHost("new-" + n, n));
      placement.removeAll();
      placement.setAll((ObjectNode) ApiSandbox.JSON.valueToTree(onSandbox));
    }
    String json = ApiSandbox.JSON.writeValueAsString(input);
    return new CliRecipes.Start(
        start.command().replace(start.input(), json), start.type(), start.workflowId(), json);
  }

  /** The JSON input the run holds, as the CLI sent it. */
  private static String startInput(WorkflowClient client, String id) {
    return client
        .fetchHistory(id)
        .getEvents()
        .get(0)
        .getWorkflowExecutionStartedEventAttributes()
        .getInput()
        .getPayloads(0)
        .getData()
        .toStringUtf8();
  }

  private static Object strictly(String json, Class<?> request) {
    try {
      return STRICT.readValue(json, request);
    } catch (Exception e) {
      throw new AssertionError(
          "%s does not read strictly as %s: %s"
              .formatted(json, request.getSimpleName(), e.getMessage()),
          e);
    }
  }

  private static RunbookDefinition<?> definition(CliRecipes.Start start) {
    return RunbookCatalog.byType(start.type())
        .orElseThrow(
            () ->
                new AssertionError("no runbook of type " + start.type() + ": " + start.command()));
  }

  private static String abbreviated(String message) {
    String line = message.replace('\n', ' ');
    return line.length() > 160 ? line.substring(0, 160) + "..." : line;
  }
}
