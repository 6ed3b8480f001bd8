package io.etcdrunbooks.workflows.activities;

import io.etcdrunbooks.workflows.model.ClientTls;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.temporal.activity.ActivityInterface;
import java.util.List;
import java.util.Map;

/** The worker's inventory file, kept in step with the clusters' real membership. */
@ActivityInterface
public interface InventoryActivities {

  /** The cluster's members as the inventory has them, in inventory order. */
  List<MemberPlacement> members(ClusterRef cluster);

  /**
   * Fails, non-retryably, when the worker could not write the inventory file: a runbook that
   * changes membership checks this before it touches anything, since it must record the change.
   */
  void checkWritable(ClusterRef cluster);

  /**
   * Writes the replacement into the inventory in place of the replaced member (same position, the
   * replaced member's entry gone), atomically. Returns false, writing nothing, when the inventory
   * already says so.
   */
  boolean recordReplacement(RecordReplacementRequest request);

  /**
   * Appends a new member to the cluster's members, atomically. Returns false, writing nothing, when
   * the inventory has it already (same name and peer URL).
   */
  boolean recordAddition(RecordAdditionRequest request);

  /**
   * Takes a removed member out of the cluster's members, atomically. Returns false, writing
   * nothing, when the inventory no longer has it.
   */
  boolean recordRemoval(RecordRemovalRequest request);

  /**
   * Records tombstones of fenced members in the cluster's inventory entry ({@code fenced}), which
   * every later discovery checks. Returns false, writing nothing, when each is there already.
   */
  boolean recordFenced(RecordFencedRequest request);

  record RecordFencedRequest(
      String cluster, java.util.List<io.etcdrunbooks.workflows.model.FencedMember> members) {}

  /** The cluster's client TLS as the inventory gives it; null when it gives none. */
  ClientTls clientTls(ClusterRef cluster);

  /**
   * Writes members' client and peer URLs (members not named keep theirs) and, when {@code setTls},
   * the cluster's tls section ({@code tls}; null removes it; a null path in it keeps the one there)
   * into the inventory, for a cluster moving to TLS one member at a time. Returns false, writing
   * nothing, when the inventory already says so.
   */
  boolean recordTls(RecordTlsRequest request);

  /**
   * The clusters a fleet holds, by name: those {@code selector} matches, or when it is blank those
   * of the inventory's fleet {@code fleet}. Fails, non-retryably ({@code FleetRefused}), on an
   * unknown fleet, a selector that cannot be read or one that selects nothing.
   */
  List<FleetCluster> selectClusters(SelectClustersRequest request);

  record SelectClustersRequest(String fleet, String selector) {}

  /**
   * @param labels the cluster's labels in the inventory
   * @param members how many members the inventory gives it
   */
  record FleetCluster(String cluster, Map<String, String> labels, int members) {}

  record RecordTlsRequest(
      String cluster,
      boolean setTls,
      ClientTls tls,
      Map<String, String> clientUrls,
      Map<String, String> peerUrls) {}

  record RecordAdditionRequest(String cluster, MemberPlacement member) {}

  record RecordRemovalRequest(String cluster, String member) {}

  record RecordReplacementRequest(String cluster, String replacedMember, MemberPlacement member) {}
}
