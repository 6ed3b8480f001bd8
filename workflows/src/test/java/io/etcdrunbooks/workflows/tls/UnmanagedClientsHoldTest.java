package io.etcdrunbooks.workflows.tls;

import static io.etcdrunbooks.workflows.testing.RunbookWaits.awaitPhase;
import static io.etcdrunbooks.workflows.testing.RunbookWaits.workflowFailure;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.Runbook;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.model.ClientConnections;
import io.etcdrunbooks.workflows.model.ClientConnections.Client;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.PhaseRunner;
import io.etcdrunbooks.workflows.phases.RunContext;
import io.etcdrunbooks.workflows.phases.RunbookPhase;
import io.etcdrunbooks.workflows.testing.FakeCluster;
import io.etcdrunbooks.workflows.testing.RecordingActivities;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.failure.CanceledFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The hold before TLS_ONLY and TRUST_NEW cut plain http or the old CA off, on connections in
 * memory: skipped when only the inventory's hosts are connected or when the request says so, held
 * until approved (again, after an approval at the start) when another client is connected or the
 * connections cannot be listed, and the whole run undone when it is cancelled there. EnableTlsTest
 * holds a real one on real etcd.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class UnmanagedClientsHoldTest {

  private static final String QUEUE = "tls-unmanaged-clients";
  private static final List<String> MEMBERS = List.of("m1", "m2", "m3");

  /** What the test workflow did after the hold: "cut", or its undo. */
  static final List<String> DONE = java.util.Collections.synchronizedList(new ArrayList<>());

  private final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();
  private final FakeCluster cluster = new FakeCluster("c", MEMBERS, "3.5.30", "m1", List.of());
  private RecordingActivities recording;

  @AfterEach
  void close() {
    env.close();
    DONE.clear();
  }

  @Test
  void onlyTheInventorysHostsConnectedCutsWithoutHolding() {
    cluster.connected(seen("m1", new Client("10.0.0.2", 2379, 3, "member m2", true)));

    holdWorkflow().cut(request());

    assertThat(DONE).containsExactly("cut");
    assertThat(recording.calls())
        .containsExactly(
            "HostActivities.clientConnections",
            "HostActivities.clientConnections",
            "HostActivities.clientConnections");
  }

  @Test
  void anUnmanagedClientHoldsTheCutUntilApprovedEvenAfterTheStartsApproval() {
    cluster.connected(
        seen(
            "m2",
            new Client("10.0.0.1", 2379, 2, "kube-apiserver on cp1", true),
            new Client("10.9.9.9", 2379, 1, null, true)));
    HoldWorkflow hold = holdWorkflow();
    CompletableFuture<String> cut = WorkflowClient.execute(hold::cut, request(true));
    awaitPhase(env, hold, Phase.AWAITING_APPROVAL);
    hold.approve("on-call");

    awaitPhase(env, hold, Phase.AWAITING_APPROVAL);
    env.sleep(java.time.Duration.ofSeconds(5));

    assertThat(DONE).isEmpty();
    assertThat(hold.progress().message())
        .contains(
            "plain http is cut off",
            "m2: [10.9.9.9 -> :2379 (1 connection, plain http served there)]")
        .doesNotContain("10.0.0.1");
    hold.approve("on-call");
    assertThat(cut.join()).isEqualTo("cut");
    assertThat(DONE).containsExactly("cut");
  }

  @Test
  void connectionsThatCannotBeListedHoldTooNamingWhy() {
    cluster.connected(
        ClientConnections.unreadable("m3", List.of("http://10.0.0.3:2379"), "no ss on 10.0.0.3"));
    HoldWorkflow hold = holdWorkflow();
    CompletableFuture<String> cut = WorkflowClient.execute(hold::cut, request());

    awaitPhase(env, hold, Phase.AWAITING_APPROVAL);

    assertThat(hold.progress().message())
        .contains("m3: its connections could not be listed (no ss on 10.0.0.3)");
    assertThat(DONE).isEmpty();
    hold.approve("on-call");
    assertThat(cut.join()).isEqualTo("cut");
  }

  @Test
  void ignoreUnmanagedClientsCutsAtOnceAndStillNamesThem() {
    cluster.connected(seen("m1", new Client("10.9.9.9", 2379, 1, null, true)));
    HoldWorkflow hold = holdWorkflow();

    hold.cut(request().ignoringUnmanagedClients(true));

    assertThat(DONE).containsExactly("cut");
    assertThat(hold.progress().completed())
        .anySatisfy(
            step ->
                assertThat(step.outcome())
                    .contains("skipped: ignoreUnmanagedClients", "m1: [10.9.9.9 -> :2379"));
  }

  @Test
  void aCancelAtTheHoldUndoesTheRunAndNamesTheClients() {
    cluster.connected(seen("m1", new Client("10.9.9.9", 2379, 1, null, true)));
    HoldWorkflow hold = holdWorkflow();
    WorkflowClient.execute(hold::cut, request());
    awaitPhase(env, hold, Phase.AWAITING_APPROVAL);

    WorkflowStub.fromTyped(hold).cancel("on-call");
    Throwable failure = workflowFailure(() -> WorkflowStub.fromTyped(hold).getResult(String.class));

    // a run asked to cancel ends cancelled whatever it throws; its progress keeps why
    assertThat(failure).hasRootCauseInstanceOf(CanceledFailure.class);
    assertThat(hold.progress().phase()).isEqualTo(Phase.FAILED);
    assertThat(hold.progress().message())
        .contains(
            "cancelled at the hold for unmanaged clients",
            "10.9.9.9 -> :2379",
            "Every change was undone, newest first: [both schemes]",
            "serves http as before");
    // the progress query replays the run, undo included: the undo ran, the cut never
    assertThat(DONE).containsOnly("undo both schemes");
  }

  @Test
  void aDryRunsPlanNamesTheClientsTheCutWouldHoldFor() {
    cluster.connected(seen("m3", new Client("10.9.9.9", 2379, 2, null, true)));

    String plan =
        holdWorkflow()
            .cut(
                ReconfigureTlsRequest.enableIssued(
                    "c",
                    "/etc/ca.key",
                    90,
                    EnableTls.both("/ca", "/crt", "/key"),
                    RunbookOptions.defaults().withDryRun(true)));

    assertThat(plan)
        .startsWith("the plan; connected now, clients the inventory does not know of")
        .contains("m3: [10.9.9.9 -> :2379 (2 connections, plain http served there)]");
  }

  private static ClientConnections seen(String member, Client... clients) {
    return new ClientConnections(
        member,
        List.of("http://127.0.0.1:2379", "https://127.0.0.1:2379"),
        List.of("http://127.0.0.1:2379"),
        List.of(clients),
        null);
  }

  private static ReconfigureTlsRequest request() {
    return request(false);
  }

  private static ReconfigureTlsRequest request(boolean requireApproval) {
    return ReconfigureTlsRequest.enableIssued(
        "c",
        "/etc/ca.key",
        90,
        EnableTls.both("/ca", "/crt", "/key"),
        RunbookOptions.defaults().withApproval(requireApproval));
  }

  private HoldWorkflow holdWorkflow() {
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(HoldWorkflowImpl.class);
    recording = new RecordingActivities(cluster);
    recording.registerOn(worker);
    env.start();
    return env.getWorkflowClient()
        .newWorkflowStub(
            HoldWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(QUEUE)
                .setWorkflowId(RunbookIds.changing("c"))
                .build());
  }

  /**
   * TLS_ONLY's hold and then its cut, with one change of the run before it to undo; a dry run: the
   * plan.
   */
  @WorkflowInterface
  public interface HoldWorkflow extends Runbook {
    @WorkflowMethod
    String cut(ReconfigureTlsRequest request);
  }

  public static final class HoldWorkflowImpl extends RunbookWorkflow implements HoldWorkflow {

    public HoldWorkflowImpl() {
      super("UnmanagedClientsHoldTest");
    }

    @Override
    public String cut(ReconfigureTlsRequest request) {
      return runChange(
          request.cluster(),
          request.dryRun(),
          () -> {
            TlsRun run =
                new TlsRun(
                    new RunContext(new Activities(), progress, this, request.cluster()),
                    request,
                    this::needApprovalAgain);
            run.members = MEMBERS;
            if (request.dryRun()) {
              progress.message("the plan");
              UnmanagedClientsHold.inPlan(run);
              return progress.snapshot().message();
            }
            if (request.requireApproval()) awaitApproval("the first change", () -> false);
            run.undo.register(
                "both schemes",
                () -> {
                  DONE.add("undo both schemes");
                  return true;
                });
            // the runner the runbook runs it in: it undoes the run when the hold is cancelled
            new PhaseRunner<TlsRun>(
                    RunbookPhase.always(
                        Phase.TLS_ONLY,
                        "the hold, then the cut",
                        r -> {
                          UnmanagedClientsHold.before(r, Phase.TLS_ONLY, "plain http is cut off");
                          DONE.add("cut");
                        }))
                .compensatingIn(Phase.COMPENSATE, "undoes the run", new TlsFailures())
                .run(run, progress);
            return "cut";
          });
    }
  }
}
