package io.etcdrunbooks.workflows.tls;

import io.etcdrunbooks.workflows.activities.EtcdActivities.AwaitMemberRequest;
import io.etcdrunbooks.workflows.activities.TlsActivities.PlacedCertificates;
import io.etcdrunbooks.workflows.activities.TlsActivities.PlacedTrust;
import io.etcdrunbooks.workflows.activities.TlsActivities.PresentedCertificate;
import io.etcdrunbooks.workflows.common.RunIds;
import io.etcdrunbooks.workflows.model.ClientTls;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberFlags;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.phases.Compensation;
import io.etcdrunbooks.workflows.phases.RunContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What one TLS reconfiguration has found and done so far. */
final class TlsRun {

  /** A member's certificate files on its host, from the flags it runs with. */
  record Files(String certFile, String keyFile) {}

  final RunContext ctx;
  final ReconfigureTlsRequest request;
  final String rotationId;
  final Compensation undo;

  /** Makes the next approval wait for a new approve: the hold for unmanaged clients has its own. */
  final Runnable needApprovalAgain;

  ClusterState state;

  /** Enabling TLS: each member's flags as it ran before, its URLs, and its placed files. */
  final Map<String, MemberFlags> flags = new LinkedHashMap<>();

  final Map<String, MemberPlacement> placements = new LinkedHashMap<>();
  final Map<String, PlacedCertificates> placed = new LinkedHashMap<>();
  final Map<String, PlacedCertificates> controlPlanePlaced = new LinkedHashMap<>();
  final List<String> apiServersChanged = new ArrayList<>();

  /** Rotating the CA: the inventory's TLS before, and the CA files on each host and the worker. */
  ClientTls inventoryTls;

  final Map<String, PlacedTrust> trust = new LinkedHashMap<>();
  final Map<String, PlacedTrust> controlPlaneTrust = new LinkedHashMap<>();
  String workerBundle;
  List<String> members = List.of();
  final Map<String, Files> files = new LinkedHashMap<>();
  final Map<String, String> fingerprints = new LinkedHashMap<>();
  final List<String> rotated = new ArrayList<>();
  Map<String, String> notAfter = Map.of();

  /** Certificates besides the serving ones that this run renews (kubeadm's), and the renewed. */
  final List<PresentedCertificate> others = new ArrayList<>();

  final Map<String, String> renewedFiles = new LinkedHashMap<>();

  TlsRun(RunContext ctx, ReconfigureTlsRequest request, Runnable needApprovalAgain) {
    this.ctx = ctx;
    this.undo = ctx.undos();
    this.request = request;
    this.needApprovalAgain = needApprovalAgain;
    this.rotationId = "tls" + RunIds.suffix();
  }

  String cluster() {
    return ctx.cluster();
  }

  boolean changes() {
    return !request.dryRun();
  }

  boolean enabling() {
    return ReconfigureTlsRequest.ENABLE.equals(request.mode());
  }

  /** Enabling TLS on client URLs: the worker, the inventory and the apiservers move too. */
  boolean enablingClients() {
    return enabling() && request.enable() != null && request.enable().coversClients();
  }

  boolean enablingPeers() {
    return enabling() && request.enable() != null && request.enable().coversPeers();
  }

  /** rotate-certificates during an outage: members checked by a handshake, not by health. */
  boolean emergency() {
    return request.emergency() && !enabling() && !rotatingCa();
  }

  boolean rotatingCa() {
    return ReconfigureTlsRequest.ROTATE_CA.equals(request.mode());
  }

  /** Waits, bounded by the member timeout, until the member is healthy on its version. */
  void awaitHealthy(String member) {
    ctx.progress()
        .run(
            member + ": healthy",
            () ->
                ctx.activities()
                    .etcdWait
                    .awaitMemberReady(
                        new AwaitMemberRequest(
                            cluster(),
                            member,
                            state.member(member).orElseThrow().serverVersion(),
                            request.effectiveMemberTimeoutSeconds())));
  }

  /** Members in the order they restart: the leader last. */
  List<String> leaderLast() {
    List<String> order = new ArrayList<>(members);
    String leader = state == null ? "" : state.leaderName();
    if (order.remove(leader)) order.add(leader);
    return order;
  }

  String what() {
    return "TLS reconfiguration (" + request.mode() + ") of " + cluster();
  }

  ReconfigureTlsResult result() {
    return new ReconfigureTlsResult(
        cluster(),
        request.mode(),
        rotationId,
        Map.copyOf(fingerprints),
        List.copyOf(rotated),
        notAfter,
        request.dryRun(),
        renewedFiles);
  }
}
