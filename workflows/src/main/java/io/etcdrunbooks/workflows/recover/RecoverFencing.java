package io.etcdrunbooks.workflows.recover;

import io.etcdrunbooks.workflows.activities.InventoryActivities.RecordFencedRequest;
import io.etcdrunbooks.workflows.activities.RecoveryActivities.FenceMemberRequest;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.FencedMember;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.phases.Discovery;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The lost members fenced before the survivor is made a cluster of one. They keep the old
 * membership and cluster id: a lost majority that powers back on would elect a leader on it and
 * serve the old state to its own apiservers. So each lost member is fenced on its host (stopped,
 * disabled, its data dir renamed), or, where its host cannot be logged in to, attested destroyed by
 * the request; each gets a tombstone in the inventory, which every later discovery checks (a fenced
 * member found answering is stopped and reported).
 */
final class RecoverFencing {

  private RecoverFencing() {}

  /** Whether this run fences (asked once, in PREFLIGHT, on the survivor path). */
  static boolean fences() {
    return RecoverPatches.FENCE_LOST_MEMBERS.applies();
  }

  /**
   * PREFLIGHT: sorts the host-access problems. A lost member's host that cannot be used is accepted
   * when the request attests the member destroyed, and refused, naming the member and the field,
   * when it does not. Returns the problems left.
   */
  static List<String> hostProblems(RecoverRun run, List<String> hostProblems) {
    List<String> problems = new ArrayList<>();
    List<String> unattested = new ArrayList<>();
    for (String p : hostProblems) {
      String lost =
          run.rebuildAs.keySet().stream()
              .filter(m -> p.startsWith("member " + m + " ("))
              .findFirst()
              .orElse(null);
      if (lost == null) {
        problems.add(p);
      } else if (run.request.destroyed().contains(lost)) {
        run.unreachableLost.add(lost);
        run.ctx.progress().message(lost + " is attested destroyed; its host: " + p);
      } else {
        unattested.add(lost);
        problems.add(
            ("%s cannot be fenced: %s. A lost member left as it is would, once its machine is"
                    + " back, elect a leader with the other lost members on the old membership and"
                    + " serve the old state beside the rebuilt cluster")
                .formatted(lost, p));
      }
    }
    if (!unattested.isEmpty()) {
      List<String> attest = new ArrayList<>(run.request.destroyed());
      unattested.forEach(m -> attest.add(m));
      problems.add(
          ("bring the host of %s back so that it can be fenced there, or, if its machine is"
                  + " destroyed (or will never come back with its data), attest it in the request:"
                  + " \"destroyed\": %s; such a member is tombstoned in the inventory and stopped"
                  + " by discovery should it ever answer again")
              .formatted(unattested, quoted(attest)));
    }
    for (String d : run.request.destroyed()) {
      if (!run.rebuildAs.containsKey(d))
        problems.add(
            "destroyed names %s, which is not a lost member (lost: %s)"
                .formatted(d, List.copyOf(run.rebuildAs.keySet())));
    }
    return problems;
  }

  /** PREFLIGHT: each lost member's etcd id, from the survivor's member list (no quorum needed). */
  static void readIds(RecoverRun run) {
    if (!run.survivorServing) return;
    List<EtcdMember> listed = Discovery.etcdMembersIfAnswered(run.ctx);
    for (MemberPlacement lost : run.inventory) {
      if (!run.rebuildAs.containsKey(lost.name())) continue;
      listed.stream()
          .filter(m -> m.hasPeerUrl(lost.peerUrl()))
          .findFirst()
          .ifPresent(m -> run.lostIds.put(lost.name(), m.hexId()));
    }
  }

  /** The plan's line for each lost member: how it is fenced. */
  static List<String> plan(RecoverRun run) {
    List<String> lines = new ArrayList<>();
    for (String lost : run.rebuildAs.keySet()) {
      lines.add(
          run.unreachableLost.contains(lost)
              ? ("%s: its host cannot be logged in to and the request attests it destroyed:"
                      + " tombstoned in the inventory, stopped by discovery should it answer again")
                  .formatted(lost)
              : ("%s: fenced on its host (etcd stopped%s, data dir renamed to %s.fenced-%s and"
                      + " kept, a marker beside it) and tombstoned in the inventory")
                  .formatted(
                      lost,
                      sameHost(run, lost) ? "" : " and its service disabled",
                      placement(run, lost).dataDir(),
                      run.recoveryId()));
    }
    return lines;
  }

  /** FENCE: tombstones first (a run stopped midway leaves them), then each host's fence. */
  static void fence(RecoverRun run) {
    ProgressTracker progress = run.ctx.progress();
    progress.stopIfCancelled("the lost members " + run.rebuildAs.keySet() + " are fenced");
    List<FencedMember> tombstones = new ArrayList<>();
    for (String lost : run.rebuildAs.keySet())
      tombstones.add(
          new FencedMember(
              placement(run, lost),
              run.lostIds.getOrDefault(lost, ""),
              run.recoveryId(),
              !run.unreachableLost.contains(lost)));
    progress.run(
        "tombstones of " + run.rebuildAs.keySet() + " in the inventory",
        () ->
            run.ctx
                .activities()
                .inventory
                .recordFenced(new RecordFencedRequest(run.cluster(), tombstones)));
    for (Map.Entry<String, MemberPlacement> e : run.rebuildAs.entrySet()) {
      String lost = e.getKey();
      if (run.unreachableLost.contains(lost)) {
        run.fenced.add(lost + ": attested destroyed, tombstoned in the inventory");
        continue;
      }
      progress.member(lost);
      String done =
          progress.record(
              lost + ": fenced on its host",
              () ->
                  run.ctx
                      .activities()
                      .recovery
                      .fenceMember(
                          new FenceMemberRequest(
                              run.cluster(), lost, run.recoveryId(), !sameHost(run, lost))));
      run.fenced.add(lost + ": " + done);
    }
    progress.member("");
  }

  private static boolean sameHost(RecoverRun run, String lost) {
    MemberPlacement was = placement(run, lost);
    MemberPlacement now = run.rebuildAs.get(lost);
    return was.host().equals(now.host()) && was.sshPort() == now.sshPort();
  }

  private static MemberPlacement placement(RecoverRun run, String name) {
    return run.inventory.stream().filter(m -> m.name().equals(name)).findFirst().orElseThrow();
  }

  private static String quoted(List<String> names) {
    return names.stream().map(n -> "\"" + n + "\"").toList().toString();
  }
}
