package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.phases.RunContext;
import java.util.List;
import java.util.function.BooleanSupplier;

/** What one member replacement has found and done so far; each phase reads it and adds to it. */
final class ReplaceRun {

  final RunContext ctx;
  final ReplaceMemberRequest request;

  /** The alert that started the runbook resolved (the alertResolved signal). */
  final BooleanSupplier alertResolved;

  /** The cluster, the failed member and its replacement as discovered first. */
  ReplacementDiscovery.Found found;

  /** The cluster's version (the lowest running), the one the new member runs. */
  String version = "";

  /** etcd 3.4 and later: the new member joins as a learner and is promoted. */
  boolean learner;

  /**
   * The alert resolved before approval, or the member came back while it was watched: nothing was
   * touched, and nothing will be.
   */
  boolean cancelled;

  /** Why it was cancelled, for the result and the progress. */
  String cancelReason = "the alert resolved before approval; nothing was touched";

  long removedId;
  EtcdMember added;
  List<String> apiServersUpdated = List.of();

  /** What else the operator should know (what became of kubeadm-config). */
  final List<String> notes = new java.util.ArrayList<>();

  /** etcd's member list as the postflight read it. */
  List<EtcdMember> members = List.of();

  ReplaceRun(RunContext ctx, ReplaceMemberRequest request, BooleanSupplier alertResolved) {
    this.ctx = ctx;
    this.request = request;
    this.alertResolved = alertResolved;
  }

  String cluster() {
    return ctx.cluster();
  }

  MemberPlacement failed() {
    return found.failed();
  }

  MemberPlacement replacement() {
    return found.replacement();
  }

  /**
   * Whether the runbook goes on to change the cluster: not a dry run, and not cancelled by a
   * resolved alert.
   */
  boolean changes() {
    return !request.dryRun() && !cancelled;
  }

  /** "replacement of m2 in cluster prod-1", for refusals and failures. */
  String what() {
    return "replacement of " + request.failedMember() + " in cluster " + cluster();
  }

  ReplaceMemberResult result() {
    if (request.dryRun())
      return before(ReplaceMemberResult.DRY_RUN, "dry run: nothing was touched");
    if (cancelled) return before(ReplaceMemberResult.CANCELLED, cancelReason);
    return new ReplaceMemberResult(
        cluster(),
        ReplaceMemberResult.REPLACED,
        request.failedMember(),
        removedId == 0 ? "" : Long.toHexString(removedId),
        replacement(),
        added.hexId(),
        learner,
        names(members, replacement()),
        apiServersUpdated,
        List.copyOf(notes));
  }

  /** The result of a runbook that touched nothing: etcd's members as first discovered. */
  private ReplaceMemberResult before(String outcome, String note) {
    return new ReplaceMemberResult(
        cluster(),
        outcome,
        request.failedMember(),
        "",
        replacement(),
        "",
        learner,
        names(found.etcdMembers(), replacement()),
        List.of(),
        List.of(note));
  }

  /**
   * etcd's member names; a member added but not started yet is named as the replacement when it has
   * its peer URL.
   */
  static List<String> names(List<EtcdMember> members, MemberPlacement replacement) {
    return members.stream()
        .map(
            m ->
                m.name().isEmpty() && replacement != null && m.hasPeerUrl(replacement.peerUrl())
                    ? replacement.name()
                    : m.name())
        .toList();
  }
}
