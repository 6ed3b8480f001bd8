package io.etcdrunbooks.workflows.maintenance;

import io.etcdrunbooks.workflows.activities.EtcdActivities.MoveLeaderRequest;
import io.etcdrunbooks.workflows.activities.MaintenanceActivities.CompactRequest;
import io.etcdrunbooks.workflows.activities.MaintenanceActivities.MemberSpace;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.PostflightCheck;
import io.temporal.failure.ActivityFailure;
import java.util.ArrayList;
import java.util.List;

/** The Maintenance runbook's changes: compaction, defragmentation, the NOSPACE alarm. */
final class MaintenanceSteps {

  private MaintenanceSteps() {}

  static void compact(MaintenanceRun run) {
    run.ctx.progress().safePoint("the compaction");
    run.compactedTo =
        run.ctx
            .progress()
            .record(
                "compact to " + run.compactTo,
                () ->
                    run.ctx
                        .activities()
                        .maintenance
                        .compact(new CompactRequest(run.cluster(), run.compactTo)));
    run.ctx.progress().message("history compacted up to revision " + run.compactedTo);
  }

  static void defragment(MaintenanceRun run) {
    ProgressTracker progress = run.ctx.progress();
    for (String member : run.order) {
      progress.safePoint("member " + member);
      progress.member(member);
      ClusterState now =
          progress.record("discover", () -> run.ctx.activities().etcd.discover(run.ctx.ref()));
      List<String> others = othersNotAnswering(now, member);
      if (!others.isEmpty()) throw halted(run, member, others);
      MemberSpace space =
          progress.record(
              member + ": database (settled)",
              () ->
                  run.ctx
                      .activities()
                      .maintenance
                      .settledSpace(new MemberRef(run.cluster(), member)));
      // out of space, every member is defragmented: what each gives back is what brings it under
      // its quota, and a compaction still being applied shows less than it will
      if (!run.nospace() && !MaintenancePreflight.worthDefragmenting(run.request, space)) {
        progress.skipped(
            member + ": defragment",
            "%d MiB free of %d MiB".formatted(space.freeBytes() >> 20, space.sizeBytes() >> 20));
        run.after.put(member, space);
        continue;
      }
      if (member.equals(now.leaderName())) handOver(run, now, member);
      run.after.put(member, defragmentOne(run, member));
      run.defragmented.add(member);
    }
  }

  private static List<String> othersNotAnswering(ClusterState state, String member) {
    List<String> problems = new ArrayList<>();
    for (MemberStatus m : state.members()) {
      if (m.name().equals(member)) continue;
      if (!m.reachable() || m.leaderId() == 0) {
        problems.add(m.name() + (m.reachable() ? " sees no leader" : " is unreachable"));
      }
    }
    return problems;
  }

  private static RuntimeException halted(MaintenanceRun run, String member, List<String> others) {
    return FailureType.MaintenanceFailed.nonRetryable(
        ("%s halted before defragmenting %s: %s, and a member defragmenting answers nothing, so the"
                + " cluster could lose quorum. Done so far: %s. Bring the member back, then run"
                + " the maintenance again: it skips what is done")
            .formatted(run.what(), member, String.join(", ", others), summary(run)));
  }

  private static void handOver(MaintenanceRun run, ClusterState now, String leader) {
    String to =
        now.members().stream()
            // answering and following (a NOSPACE alarm leaves no member "healthy")
            .filter(
                m -> !m.name().equals(leader) && m.reachable() && m.leaderId() != 0 && !m.learner())
            .map(MemberStatus::name)
            .findFirst()
            .orElse("");
    if (to.isEmpty()) return; // nobody to hand to: the leader is defragmented as it is
    run.ctx
        .progress()
        .run(
            "move leader to " + to,
            () -> run.ctx.activities().etcd.moveLeader(new MoveLeaderRequest(run.cluster(), to)));
  }

  private static MemberSpace defragmentOne(MaintenanceRun run, String member) {
    MemberRef ref = new MemberRef(run.cluster(), member);
    try {
      MemberSpace after =
          run.ctx
              .progress()
              .record(
                  member + ": defragment", () -> run.ctx.activities().maintenance.defragment(ref));
      // a defragmented member was blocked, not restarted: it must answer and see a leader again
      // (healthy it is not while NOSPACE stays raised, which ALARMS clears afterwards)
      ClusterState again =
          run.ctx
              .progress()
              .record(
                  member + ": answers", () -> run.ctx.activities().etcd.discover(run.ctx.ref()));
      MemberStatus status = again.member(member).orElseThrow();
      if (!status.reachable() || status.leaderId() == 0) {
        throw FailureType.MaintenanceFailed.nonRetryable(
            ("%s stopped after defragmenting %s: it %s. Done so far: %s. Look at the member (its"
                    + " log, etcdctl endpoint status) before running the maintenance again")
                .formatted(
                    run.what(),
                    member,
                    status.reachable() ? "sees no leader" : "does not answer: " + status.errors(),
                    summary(run)));
      }
      MemberSpace before = run.before.get(member);
      run.ctx
          .progress()
          .message(
              "%s defragmented: %d MiB -> %d MiB"
                  .formatted(member, before.sizeBytes() >> 20, after.sizeBytes() >> 20));
      return after;
    } catch (ActivityFailure e) {
      throw FailureType.MaintenanceFailed.nonRetryable(
          ("%s failed at member %s: %s. Done so far: %s. Nothing needs putting back: look at the"
                  + " member (its log, etcdctl endpoint status), then run the maintenance again")
              .formatted(run.what(), member, Failures.rootMessage(e), summary(run)));
    }
  }

  static void disarm(MaintenanceRun run) {
    List<String> over = new ArrayList<>();
    for (String member : run.quotas.keySet()) {
      MemberSpace space = MaintenancePreflight.space(run, member);
      run.after.put(member, space);
      long quota = run.quotas.get(member);
      if (space.sizeBytes() >= quota) {
        over.add(
            "%s's database is %d MiB, its quota %d MiB"
                .formatted(member, space.sizeBytes() >> 20, quota >> 20));
      }
    }
    if (!over.isEmpty()) {
      throw FailureType.MaintenanceFailed.nonRetryable(
          ("%s left the NOSPACE alarm raised: %s; disarming it now would raise it again at the"
                  + " next write. Done so far: %s. Compact further (compactKeepRevisions), delete"
                  + " what is not needed or raise --quota-backend-bytes, then run it again")
              .formatted(run.what(), String.join("; ", over), summary(run)));
    }
    run.disarmed =
        run.ctx
            .progress()
            .record(
                "disarm NOSPACE",
                () -> run.ctx.activities().maintenance.disarmNospace(run.ctx.ref()));
    run.ctx.progress().message("NOSPACE disarmed on " + run.disarmed);
  }

  static void postflight(MaintenanceRun run) {
    PostflightCheck.Found found = PostflightCheck.check(run.ctx, state -> List.of());
    if (!found.problems().isEmpty()) throw PostflightCheck.failed(run.what(), found.problems());
  }

  static void done(MaintenanceRun run) {
    run.ctx
        .progress()
        .message(
            run.changes()
                ? "maintenance done: " + summary(run)
                : "dry run: nothing changed (the plan above says what a run would do)");
  }

  private static String summary(MaintenanceRun run) {
    List<String> parts = new ArrayList<>();
    if (run.compactedTo > 0) parts.add("history compacted up to " + run.compactedTo);
    for (String member : run.defragmented) {
      parts.add(
          "%s %d -> %d MiB"
              .formatted(
                  member,
                  run.before.get(member).sizeBytes() >> 20,
                  run.after.get(member).sizeBytes() >> 20));
    }
    if (!run.disarmed.isEmpty()) parts.add("NOSPACE disarmed on " + run.disarmed);
    return parts.isEmpty() ? "nothing" : String.join(", ", parts);
  }
}
