package io.etcdrunbooks.workflows.maintenance;

import static io.etcdrunbooks.workflows.phases.RunbookPhase.always;
import static io.etcdrunbooks.workflows.phases.RunbookPhase.when;

import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.phases.PhaseRunner;

/** The Maintenance runbook, phase by phase. */
public final class MaintenancePhases {

  // long on purpose: a declarative table, one entry per phase with its documented description
  public static final PhaseRunner<MaintenanceRun> RUNNER =
      new PhaseRunner<MaintenanceRun>(
          always(
              Phase.DISCOVER,
              "reads the cluster and each member's database (its size and the part in use) and,"
                  + " with a NOSPACE alarm raised, each member's --quota-backend-bytes",
              MaintenancePreflight::discover),
          always(
              Phase.PREFLIGHT,
              "refuses, touching nothing, unless every member answers and sees a leader (a NOSPACE"
                  + " alarm is what this runbook clears; any other alarm refuses) and the"
                  + " compaction revision is no newer than the cluster's, nor than"
                  + " kube-apiserver's own last compaction (compact_rev_key) unless forced or"
                  + " NOSPACE is raised",
              MaintenancePreflight::run),
          always(
              Phase.PLAN,
              "names the compaction revision and the members to defragment (those with at least"
                  + " 10% and 1 MiB to give back, or all), followers first and the leader last; a"
                  + " dry run ends here",
              MaintenancePreflight::plan),
          when(
              Phase.AWAITING_APPROVAL,
              "waits for an operator's approve (requireApproval)",
              run -> run.changes() && run.request.requireApproval(),
              run ->
                  run.ctx
                      .approval()
                      .awaitApproval(
                          "the history is compacted or a member defragmented", () -> false)),
          when(
              Phase.COMPACT,
              "compacts the keyspace's history up to the planned revision, physically (every"
                  + " member has applied it when the call returns); a history compacted there"
                  + " already is left as it is",
              run -> run.changes() && run.compactTo > 0,
              MaintenanceSteps::compact),
          when(
              Phase.DEFRAGMENT,
              "one member at a time, followers first and the leader last (leadership handed to a"
                  + " follower first): every other member must answer and see a leader, the"
                  + " member's database is read again once a compaction has settled on it and"
                  + " defragmented when it has space to give back (with NOSPACE raised, always),"
                  + " then it must answer and see a leader again before the next",
              MaintenanceRun::changes,
              MaintenanceSteps::defragment),
          when(
              Phase.ALARMS,
              "a NOSPACE alarm is disarmed only when every member's database is under its quota;"
                  + " otherwise the runbook fails naming each member's size and quota",
              run -> run.changes() && run.nospace(),
              MaintenanceSteps::disarm),
          when(
              Phase.POSTFLIGHT,
              "every member healthy, no alarm raised, raft indexes and hashkv equal",
              MaintenanceRun::changes,
              MaintenanceSteps::postflight),
          always(
              Phase.DONE,
              "the result: each member's database before and after, the compaction revision, the"
                  + " members defragmented and the alarms disarmed",
              MaintenanceSteps::done));

  private MaintenancePhases() {}
}
