package io.etcdrunbooks.workflows.maintenance;

import static io.etcdrunbooks.workflows.phases.RunbookPhase.always;
import static io.etcdrunbooks.workflows.phases.RunbookPhase.when;

import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.common.RunbookSearchAttributes;
import io.etcdrunbooks.workflows.maintenance.MaintenanceScheduleRequest.RevisionSeen;
import io.etcdrunbooks.workflows.phases.PhaseRunner;
import io.temporal.api.enums.v1.WorkflowIdReusePolicy;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ChildWorkflowFailure;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;

/**
 * The MaintenanceSchedule runbook, phase by phase: its phases are one round, and it goes round
 * until maxRounds, or until it is cancelled, continuing as new every {@link #ROUNDS_PER_RUN}
 * rounds.
 */
public final class MaintenanceSchedulePhases {

  static final int ROUNDS_PER_RUN = 50;

  /** A round this late (a pause held it) takes the present as its slot. */
  private static final Duration LATE = Duration.ofMinutes(1);

  public static final PhaseRunner<MaintenanceScheduleRun> RUNNER =
      new PhaseRunner<MaintenanceScheduleRun>(
          always(
              Phase.WAITING,
              "waits on workflow time until the next round is due; pause holds it here, and"
                  + " rounds missed meanwhile are skipped, not caught up",
              MaintenanceSchedulePhases::await),
          always(
              Phase.MAINTENANCE,
              "notes the cluster's revision, then runs a Maintenance runbook as a child under the"
                  + " cluster's change id, compacting to the newest revision noted at least"
                  + " compactOlderThanMinutes ago; a round that fails, or finds another change"
                  + " holding the cluster, is recorded and the schedule goes on",
              MaintenanceSchedulePhases::round),
          when(
              Phase.DONE,
              "after maxRounds rounds: each round and the rounds that failed",
              MaintenanceScheduleRun::reachedMax,
              run -> {}));

  private MaintenanceSchedulePhases() {}

  static MaintenanceScheduleResult run(MaintenanceScheduleRun run, ProgressTracker progress) {
    while (true) {
      RUNNER.run(run, progress);
      if (run.reachedMax()) return run.result();
      if (run.done() >= ROUNDS_PER_RUN) Workflow.continueAsNew(run.continued());
    }
  }

  private static void await(MaintenanceScheduleRun run) {
    run.ctx.progress().step("next round at " + Instant.ofEpochMilli(run.next));
    // a Temporal Schedule's one round: the schedule keeps the time, a gauge left at this slot would
    // read as overdue once the round has ended
    if (run.request.maxRounds() != 1) run.ctx.progress().scheduleNext(run.next);
    Workflow.sleep(Duration.ofMillis(Math.max(0, run.next - Workflow.currentTimeMillis())));
    run.ctx.progress().awaitResumed();
    // held by a pause past its slot: the round runs now, and its revision is noted as of now
    long now = Workflow.currentTimeMillis();
    if (!run.slotFromSchedule && now - run.next > LATE.toMillis()) run.next = now;
  }

  private static void round(MaintenanceScheduleRun run) {
    ProgressTracker progress = run.ctx.progress();
    // the round's slot, not the clock: "at least N minutes ago" then holds between slots exactly
    long now = run.next;
    String when = Instant.ofEpochMilli(now).toString();
    try {
      long revision =
          progress.record(
              "revision now", () -> run.ctx.activities().etcd.discover(run.ctx.ref()).revision());
      run.revisions.add(new RevisionSeen(now, revision));
    } catch (ActivityFailure e) {
      run.failures.add(when + ": the cluster could not be read: " + Failures.rootMessage(e));
      planNext(run);
      return;
    }
    long target = run.compactionTarget(now);
    run.forgetOlderThanNeeded(now);
    MaintenanceRequest compacting =
        MaintenanceRequest.of(run.cluster(), RunbookOptions.defaults()).compactingTo(target);
    if (target > 0 && run.request.roundsForceCompaction()) {
      compacting = compacting.forcingCompaction();
    }
    MaintenanceRequest request =
        run.request.defragmentAll() ? compacting.defragmentingAll() : compacting;
    MaintenanceWorkflow maintenance =
        Workflow.newChildWorkflowStub(
            MaintenanceWorkflow.class,
            RunbookSearchAttributes.inherited(
                    ChildWorkflowOptions.newBuilder(), MaintenanceWorkflow.TYPE, run.cluster())
                // the change id: a round never overlaps another change of the cluster
                .setWorkflowId(RunbookIds.changing(run.cluster()))
                .setWorkflowIdReusePolicy(
                    WorkflowIdReusePolicy.WORKFLOW_ID_REUSE_POLICY_ALLOW_DUPLICATE)
                .build());
    try {
      MaintenanceResult result =
          progress.record(
              "maintenance round " + (run.done() + 1), () -> maintenance.maintain(request));
      String line =
          "%s: compacted to %s, defragmented %s"
              .formatted(
                  when,
                  result.compactedTo() == 0 ? "(nothing)" : result.compactedTo(),
                  result.defragmented());
      run.rounds.add(line);
      progress.message("last round " + line);
    } catch (ChildWorkflowFailure e) {
      run.failures.add(when + ": " + Failures.rootMessage(e));
      progress.message(
          "maintenance round failed or was skipped, the schedule goes on: "
              + Failures.rootMessage(e));
    }
    planNext(run);
  }

  private static void planNext(MaintenanceScheduleRun run) {
    long interval = Duration.ofMinutes(run.request.effectiveIntervalMinutes()).toMillis();
    long now = Workflow.currentTimeMillis();
    do {
      run.next += interval;
    } while (run.next <= now);
  }
}
