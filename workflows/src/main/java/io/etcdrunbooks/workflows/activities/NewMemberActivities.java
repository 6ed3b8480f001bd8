package io.etcdrunbooks.workflows.activities;

import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.temporal.activity.ActivityInterface;

/**
 * A member's host before it is in the inventory: checked, prepared to join an existing cluster,
 * started, and cleaned up again when the join is given up. Over SSH with the cluster's SSH
 * settings; host keys are verified.
 */
@ActivityInterface(namePrefix = "NewMember")
public interface NewMemberActivities {

  /**
   * Logs in (verifying the host key) and checks that the version can be installed there; touches
   * nothing. Fails, non-retryably, naming the host and what is wrong.
   */
  void checkHost(NewMemberRequest request);

  /**
   * Everything a join will need on the host beyond {@link #checkHost}, for a runbook that checks
   * before its point of no return; touches nothing. The data dir and the install and service
   * directories can be created (with the rights the member's files are written with: root's for a
   * systemd unit or a static pod), the service definition can be placed (a systemd unit known there
   * or {@code /etc/systemd/system} to copy a peer's to; kubelet's manifests directory), and, when
   * {@code portsFree}, nothing listens on the ports of its client and peer URLs. Fails,
   * non-retryably ({@code HostNotUsable}), naming every problem.
   */
  void checkPlacement(PlacementRequest request);

  /**
   * @param portsFree the URLs are new on that host (not a member's own, rebuilt in its place)
   */
  record PlacementRequest(
      String cluster, MemberPlacement member, String version, boolean portsFree) {}

  /**
   * Installs the version, keeps an existing data dir aside (renamed, never deleted) unless it
   * already belongs to this member, and writes the member's settings to join the existing cluster
   * ({@code initial-cluster-state=existing}, {@code initialCluster}). Stops an etcd still running
   * from that host's settings first. Skips what is done.
   */
  void prepare(PrepareRequest request);

  /**
   * Starts the member's etcd; no-op when it runs. Fails as MemberStartFailed when it does not stay
   * up.
   */
  void start(NewMemberRequest request);

  /**
   * Undoes {@link #prepare} and {@link #start} after a join was given up: stops the member's etcd
   * and keeps its data dir aside, so that a later attempt starts clean. No-op when there is nothing
   * to undo.
   */
  void discard(NewMemberRequest request);

  /** Last lines of the member's etcd log, "" when there is none. */
  String logTail(NewMemberRequest request);

  /**
   * @param cluster inventory cluster whose SSH settings and service kind apply
   * @param member the new member's placement, complete (no empty paths)
   * @param version etcd version it runs
   */
  record NewMemberRequest(String cluster, MemberPlacement member, String version) {}

  /**
   * @param initialCluster etcd's {@code initial-cluster}: every member's name=peerURL, the new
   *     member included
   */
  record PrepareRequest(
      String cluster, MemberPlacement member, String version, String initialCluster) {}
}
