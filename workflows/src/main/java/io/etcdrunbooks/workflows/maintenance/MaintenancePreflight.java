package io.etcdrunbooks.workflows.maintenance;

import io.etcdrunbooks.workflows.activities.MaintenanceActivities.ApiServerCompaction;
import io.etcdrunbooks.workflows.activities.MaintenanceActivities.MemberSpace;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.Discovery;
import io.etcdrunbooks.workflows.phases.Refusal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** DISCOVER, PREFLIGHT and PLAN of the Maintenance runbook: nothing is changed. */
final class MaintenancePreflight {

  private MaintenancePreflight() {}

  static void discover(MaintenanceRun run) {
    run.state =
        Discovery.discoverOrRefuseAnyFailure(
            run.ctx.activities(),
            run.ctx.progress(),
            run.cluster(),
            run.what(),
            FailureType.MaintenanceRefused);
    for (MemberStatus m : run.state.members()) {
      if (!m.reachable()) continue;
      run.before.put(m.name(), space(run, m.name()));
    }
    if (run.nospace()) {
      for (MemberStatus m : run.state.members()) {
        MemberRef ref = new MemberRef(run.cluster(), m.name());
        run.quotas.put(
            m.name(),
            run.ctx
                .progress()
                .record(m.name() + ": flags", () -> run.ctx.activities().host.memberFlags(ref))
                .quotaBackendBytes());
      }
    }
  }

  static MemberSpace space(MaintenanceRun run, String member) {
    return run.ctx
        .progress()
        .record(
            member + ": database",
            () -> run.ctx.activities().maintenance.space(new MemberRef(run.cluster(), member)));
  }

  static void run(MaintenanceRun run) {
    List<String> problems = new ArrayList<>(memberProblems(run));
    run.compactTo = run.request.compactionTarget(run.state.revision());
    if (run.request.compactRevision() < 0) {
      problems.add("compactRevision %d is negative".formatted(run.request.compactRevision()));
    } else if (run.compactTo > run.state.revision()) {
      problems.add(
          "compactRevision %d is newer than the cluster's revision %d: give one at or below it"
              .formatted(run.compactTo, run.state.revision()));
    } else if (run.compactTo > 0) {
      apiServerWindowProblem(run).ifPresent(problems::add);
    }
    if (!problems.isEmpty()) throw Refusal.of(run.what(), problems, FailureType.MaintenanceRefused);
  }

  /**
   * A compaction inside kube-apiserver's window is refused unless forced; out of space it is the
   * way out, and the plan says what it costs.
   */
  private static Optional<String> apiServerWindowProblem(MaintenanceRun run) {
    if (run.request.forceCompaction() || run.nospace()) return Optional.empty();
    if (!MaintenancePatches.COMPACTION_WINDOW.applies()) {
      return Optional.empty();
    }
    ApiServerCompaction apiServer =
        run.ctx
            .progress()
            .record(
                "kube-apiserver's compaction",
                () -> run.ctx.activities().maintenance.apiServerCompaction(run.ctx.ref()));
    return CompactionWindow.problem(run.compactTo, apiServer);
  }

  /**
   * Members must answer and see a leader: defragmenting one makes it answer nothing for a while, so
   * with another one down the cluster would lose quorum. A NOSPACE alarm and the errors it puts in
   * the members' status are what this runbook is for.
   */
  static List<String> memberProblems(MaintenanceRun run) {
    List<String> problems = new ArrayList<>();
    for (MemberStatus m : run.state.members()) {
      // etcd's /health answers false while NOSPACE is raised, whatever else is well
      List<String> errors =
          m.errors().stream()
              .filter(e -> !e.contains("NOSPACE"))
              .filter(e -> !(run.nospace() && e.endsWith("/health reports false")))
              .toList();
      if (!m.reachable()) {
        problems.add(
            "member %s is unreachable (%s): bring it back or replace it first; defragmenting"
                    .formatted(m.name(), m.errors())
                + " another member meanwhile could cost quorum");
      } else if (m.leaderId() == 0 || !errors.isEmpty()) {
        problems.add(
            "member %s is unhealthy (%s): fix it before maintenance"
                .formatted(m.name(), errors.isEmpty() ? "sees no leader" : errors));
      }
      if (m.learner()) problems.add("member " + m.name() + " is a learner: promote or remove it");
    }
    run.state
        .alarmsUnreadReason()
        .ifPresent(why -> problems.add("the alarm list could not be read (" + why + ")"));
    for (String alarm : run.state.alarms()) {
      if (!alarm.startsWith("NOSPACE")) {
        problems.add(
            ("alarm raised: %s: a CORRUPT member is replaced from a healthy one (ReplaceMember),"
                    + " not maintained")
                .formatted(alarm));
      }
    }
    return problems;
  }

  static void plan(MaintenanceRun run) {
    String leader = run.state.leaderName();
    run.order =
        Stream.concat(
                run.state.members().stream().map(MemberStatus::name).filter(n -> !n.equals(leader)),
                Stream.of(leader))
            .toList();
    List<String> lines = new ArrayList<>();
    lines.add(
        run.compactTo > 0
            ? "compact the history up to revision %d (the cluster is at %d)%s"
                .formatted(run.compactTo, run.state.revision(), windowWarning(run))
            : "no compaction");
    for (String member : run.order) {
      MemberSpace space = run.before.get(member);
      lines.add(
          "%s%s: %d MiB, %d MiB in use: %s"
              .formatted(
                  member,
                  member.equals(leader) ? " (leader, last)" : "",
                  space.sizeBytes() >> 20,
                  space.inUseBytes() >> 20,
                  worthDefragmenting(run.request, space) || run.compactTo > 0
                      ? "defragment (read again after the compaction)"
                      : "nothing to give back"));
    }
    if (run.nospace()) {
      lines.add(
          "NOSPACE raised: disarmed once every database is under its quota "
              + run.quotas.entrySet().stream()
                  .map(q -> q.getKey() + "=" + (q.getValue() >> 20) + " MiB")
                  .toList());
    }
    run.ctx.progress().message("plan: " + String.join("; ", lines));
  }

  private static String windowWarning(MaintenanceRun run) {
    if (run.request.forceCompaction()) return ", forced: " + CompactionWindow.RELISTS;
    if (run.nospace()) {
      return ", even inside kube-apiserver's window, as NOSPACE leaves no other way out: "
          + CompactionWindow.RELISTS;
    }
    return "";
  }

  /**
   * At least {@value MaintenanceRequest#MIN_FREE_PERCENT}% and 1 MiB to give back, or all asked.
   */
  static boolean worthDefragmenting(MaintenanceRequest request, MemberSpace space) {
    if (request.defragmentAll()) return true;
    return space.freeBytes() >= MaintenanceRequest.MIN_FREE_BYTES
        && space.freeBytes() * 100 >= space.sizeBytes() * MaintenanceRequest.MIN_FREE_PERCENT;
  }
}
