package io.etcdrunbooks.workflows.scale;

import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.phases.RunContext;
import java.util.ArrayList;
import java.util.List;

/** What one scaling has found and done so far; each phase reads it and adds to it. */
final class ScaleRun {

  final RunContext ctx;
  final ScaleClusterRequest request;

  List<MemberPlacement> inventory = List.of();
  ClusterState state;
  List<EtcdMember> etcdMembers = List.of();
  ScalePlanning.Plan plan = new ScalePlanning.Plan(List.of(), List.of());

  /** The cluster's version, the one new members run. */
  String version = "";

  /** etcd 3.4 and later: new members join as learners and are promoted. */
  boolean learner;

  final List<String> added = new ArrayList<>();
  final List<String> removed = new ArrayList<>();
  List<String> apiServersUpdated = List.of();

  /** What else the operator should know (what became of kubeadm-config). */
  final List<String> notes = new ArrayList<>();

  /** etcd's member list as the postflight read it. */
  List<EtcdMember> members = List.of();

  ScaleRun(RunContext ctx, ScaleClusterRequest request) {
    this.ctx = ctx;
    this.request = request;
  }

  String cluster() {
    return ctx.cluster();
  }

  /** Whether the runbook goes on to change the cluster: not a dry run, and something to do. */
  boolean changes() {
    return !request.dryRun() && plan.changes();
  }

  /** "scaling of prod-1 to 5 members", for refusals and failures. */
  String what() {
    return "scaling of %s to %d members".formatted(cluster(), request.targetSize());
  }

  /** The client URLs the kube-apiservers use once the plan is carried out, in inventory order. */
  List<String> targetClientUrls() {
    List<String> urls = new ArrayList<>();
    for (MemberPlacement m : inventory) {
      if (plan.remove().stream().noneMatch(r -> r.name().equals(m.name()))) urls.add(m.clientUrl());
    }
    plan.add().forEach(m -> urls.add(m.clientUrl()));
    return urls;
  }

  ScaleClusterResult result() {
    int from = inventory.size();
    if (!plan.changes())
      return new ScaleClusterResult(
          cluster(),
          ScaleClusterResult.UNCHANGED,
          from,
          from,
          List.of(),
          List.of(),
          names(etcdMembers),
          List.of(),
          List.of("the cluster has %d members already: nothing was touched".formatted(from)));
    if (request.dryRun())
      return new ScaleClusterResult(
          cluster(),
          ScaleClusterResult.DRY_RUN,
          from,
          from,
          List.of(),
          List.of(),
          names(etcdMembers),
          List.of(),
          List.of("dry run: nothing was touched"));
    return new ScaleClusterResult(
        cluster(),
        ScaleClusterResult.SCALED,
        from,
        members.size(),
        added,
        removed,
        names(members),
        apiServersUpdated,
        List.copyOf(notes));
  }

  static List<String> names(List<EtcdMember> members) {
    return members.stream().map(m -> m.name().isEmpty() ? m.hexId() : m.name()).toList();
  }

  static List<String> placementNames(List<MemberPlacement> members) {
    return members.stream().map(MemberPlacement::name).toList();
  }
}
