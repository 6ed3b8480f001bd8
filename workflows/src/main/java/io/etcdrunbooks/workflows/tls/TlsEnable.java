package io.etcdrunbooks.workflows.tls;

import io.etcdrunbooks.workflows.activities.ApiServerActivities.AwaitApiServerRequest;
import io.etcdrunbooks.workflows.activities.ApiServerActivities.ControlPlaneRef;
import io.etcdrunbooks.workflows.activities.ApiServerActivities.SetEtcdClientTlsRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.RestoreMemberFlagsRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.SetMemberFlagsRequest;
import io.etcdrunbooks.workflows.activities.InventoryActivities.RecordTlsRequest;
import io.etcdrunbooks.workflows.activities.MembershipActivities.UpdatePeerUrlRequest;
import io.etcdrunbooks.workflows.activities.TlsActivities.AwaitCertificateRequest;
import io.etcdrunbooks.workflows.activities.TlsActivities.PlaceCertificatesRequest;
import io.etcdrunbooks.workflows.activities.TlsActivities.PlacedCertificates;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.ApiServerRollout;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import java.util.List;
import java.util.Map;

/**
 * The enable mode's changing phases: certificates placed on every host, each member restarted
 * serving http and https (and dialling peers with its certificate), the worker and every
 * kube-apiserver moved to https, then each member restarted serving TLS only (its peer URL changed
 * with {@code member update} first). Every change registers its undo first; when a step fails the
 * phase runner undoes every change of the run, newest first, so the cluster is back on http as it
 * was ({@link TlsFailures}).
 */
final class TlsEnable {

  private TlsEnable() {}

  static void placeCertificates(TlsRun run) {
    for (String member : run.members) {
      PlaceCertificatesRequest request = placement(run, member, null);
      run.undo.register(
          member + ": placed certificate files",
          () ->
              run.ctx
                  .progress()
                  .record(
                      member + ": take the placed certificate files away",
                      () -> activities(run).tls.removePlacedCertificates(request)));
      PlacedCertificates placed =
          guarded(
              run,
              member,
              () ->
                  run.ctx
                      .progress()
                      .record(
                          member + ": certificate files in place",
                          () -> activities(run).tls.placeCertificates(request)));
      run.placed.put(member, placed);
      run.fingerprints.put(member, placed.fingerprint());
    }
    if (!run.enablingClients()) return;
    for (String host : activities(run).apiServer.controlPlaneHosts(run.ctx.ref())) {
      PlaceCertificatesRequest request = placement(run, null, host);
      run.undo.register(
          host + ": placed etcd client certificate",
          () ->
              run.ctx
                  .progress()
                  .record(
                      host + ": take the placed certificate files away",
                      () -> activities(run).tls.removePlacedCertificates(request)));
      run.controlPlanePlaced.put(
          host,
          guarded(
              run,
              host,
              () ->
                  run.ctx
                      .progress()
                      .record(
                          host + ": etcd client certificate in place",
                          () -> activities(run).tls.placeCertificates(request))));
    }
  }

  /**
   * Each member serves http and https on its client port; the inventory gives the worker its https
   * URL before it stops (the worker's gRPC does not reach a member serving both schemes over http).
   */
  static void bothSchemes(TlsRun run) {
    List<String> order = run.leaderLast();
    for (String member : order) {
      String http = run.placements.get(member).clientUrl();
      boolean first = member.equals(order.get(0));
      restartWith(
          run,
          member,
          "both",
          TlsFlags.bothSchemes(run, member),
          List.of(
              new Extra(
                  "inventory: client URL " + TlsFlags.https(http),
                  () -> recordClientUrl(run, member, TlsFlags.https(http), true),
                  () -> recordClientUrl(run, member, http, !first))));
      if (run.enablingClients()) {
        guarded(
            run,
            member,
            () -> {
              run.ctx
                  .progress()
                  .run(
                      member + ": serves its certificate on https",
                      () ->
                          run.ctx
                              .activities()
                              .tlsWait
                              .awaitServedCertificate(
                                  new AwaitCertificateRequest(
                                      run.cluster(),
                                      member,
                                      run.placed.get(member).fingerprint(),
                                      run.request.effectiveMemberTimeoutSeconds(),
                                      run.request.enable().workerTls())));
              return null;
            });
      }
    }
  }

  private static boolean recordClientUrl(TlsRun run, String member, String url, boolean tls) {
    return activities(run)
        .inventory
        .recordTls(
            new RecordTlsRequest(
                run.cluster(),
                true,
                tls ? run.request.enable().workerTls() : null,
                Map.of(member, url),
                Map.of()));
  }

  private static boolean recordPeerUrl(TlsRun run, String member, String url) {
    return activities(run)
        .inventory
        .recordTls(new RecordTlsRequest(run.cluster(), false, null, Map.of(), Map.of(member, url)));
  }

  private static boolean updatePeerUrl(TlsRun run, String member, String url) {
    return activities(run)
        .membership
        .updatePeerUrl(new UpdatePeerUrlRequest(run.cluster(), member, url));
  }

  static void apiServers(TlsRun run) {
    run.undo.register(
        "kube-apiservers back to http",
        () -> {
          List<String> newestFirst = new java.util.ArrayList<>(run.apiServersChanged);
          java.util.Collections.reverse(newestFirst);
          for (String host : newestFirst) {
            run.ctx
                .progress()
                .run(
                    host + ": put the previous manifest back",
                    () ->
                        activities(run)
                            .apiServer
                            .restoreManifest(new ControlPlaneRef(run.cluster(), host)));
            awaitApiServer(run, host);
          }
          return !run.apiServersChanged.isEmpty();
        });
    List<String> servers =
        run.members.stream().map(m -> TlsFlags.https(run.placements.get(m).clientUrl())).toList();
    new ApiServerRollout(run.ctx, run.request.effectiveMemberTimeoutSeconds())
        .run(
            new ApiServerRollout.Edit(
                "--etcd-servers " + servers + " with the etcd client certificate",
                host -> {
                  PlacedCertificates files = run.controlPlanePlaced.get(host);
                  boolean changed =
                      activities(run)
                          .apiServer
                          .setEtcdClientTls(
                              new SetEtcdClientTlsRequest(
                                  run.cluster(),
                                  host,
                                  servers,
                                  files.caFile(),
                                  files.certFile(),
                                  files.keyFile()));
                  if (changed) run.apiServersChanged.add(host);
                  return changed;
                }));
  }

  static void awaitApiServer(TlsRun run, String host) {
    run.ctx
        .progress()
        .run(
            host + ": kube-apiserver healthy",
            () ->
                activities(run)
                    .apiServerWait
                    .awaitHealthy(
                        new AwaitApiServerRequest(
                            run.cluster(), host, run.request.effectiveMemberTimeoutSeconds())));
  }

  /** Each member serves clients on TLS only, and dials peers with its certificate. */
  static void tlsOnly(TlsRun run) {
    for (String member : run.leaderLast()) {
      restartWith(run, member, "tls-only", TlsFlags.tlsOnly(run, member), List.of());
      if (!run.enablingPeers()) run.rotated.add(member);
    }
  }

  /** Each member's peer URL https: member update first, then it listens on https. */
  static void peerTls(TlsRun run) {
    for (String member : run.leaderLast()) {
      String http = run.placements.get(member).peerUrl();
      String https = TlsFlags.https(http);
      restartWith(
          run,
          member,
          "peer-tls",
          TlsFlags.peerTls(run, member),
          List.of(
              new Extra(
                  "peer URL " + https + " (member update)",
                  () -> updatePeerUrl(run, member, https),
                  () -> updatePeerUrl(run, member, http)),
              new Extra(
                  "inventory: peer URL " + https,
                  () -> recordPeerUrl(run, member, https),
                  () -> recordPeerUrl(run, member, http))));
      run.rotated.add(member);
    }
  }

  /**
   * A change made with a member's restart, before it stops, and its undo, run before the member's
   * flags are put back.
   */
  record Extra(
      String what,
      java.util.function.Supplier<Boolean> apply,
      java.util.function.Supplier<Boolean> undo) {}

  /**
   * One member restarted with these flags after the extras (none changed: left running), the way
   * back of each registered first: the flags as they were, then each extra's undo, which runs
   * before them.
   */
  static void restartWith(
      TlsRun run, String member, String step, Map<String, String> flags, List<Extra> extras) {
    ProgressTracker progress = run.ctx.progress();
    progress.awaitResumed();
    progress.member(member);
    String changeId = run.rotationId + "-" + step;
    MemberRef ref = new MemberRef(run.cluster(), member);
    List<String> changes =
        progress.record(
            member + ": flags to change",
            () ->
                activities(run)
                    .host
                    .setMemberFlags(
                        new SetMemberFlagsRequest(run.cluster(), member, flags, changeId, false)));
    if (changes.isEmpty() && extras.isEmpty()) {
      progress.skipped(member + ": restart (" + step + ")", "its flags say so already");
      return;
    }
    run.undo.register(
        member + ": flags before " + step,
        () -> {
          boolean back =
              progress.record(
                  member + ": flags before " + step + " put back",
                  () ->
                      activities(run)
                          .host
                          .restoreMemberFlags(
                              new RestoreMemberFlagsRequest(run.cluster(), member, changeId)));
          restart(run, member, ref, null);
          return back;
        });
    for (Extra extra : extras) {
      run.undo.register(
          member + ": " + extra.what(),
          () -> progress.record(member + ": undo " + extra.what(), extra.undo()));
    }
    guarded(
        run,
        member,
        () -> {
          for (Extra extra : extras) progress.record(member + ": " + extra.what(), extra.apply());
          restart(
              run,
              member,
              ref,
              () ->
                  progress.record(
                      member + ": " + changes,
                      () ->
                          activities(run)
                              .host
                              .setMemberFlags(
                                  new SetMemberFlagsRequest(
                                      run.cluster(), member, flags, changeId, true))));
          return null;
        });
  }

  /** Stop, the flags written when given, start, and healthy again. */
  private static void restart(TlsRun run, String member, MemberRef ref, Runnable between) {
    ProgressTracker progress = run.ctx.progress();
    progress.run(member + ": stop", () -> activities(run).host.stopMember(ref));
    if (between != null) between.run();
    progress.run(member + ": start", () -> activities(run).host.startMember(ref));
    run.awaitHealthy(member);
  }

  private static PlaceCertificatesRequest placement(TlsRun run, String member, String host) {
    EnableTls enable = run.request.enable();
    return new PlaceCertificatesRequest(
        run.cluster(),
        member,
        host,
        run.request.certificatesDir(),
        run.request.caKeyFile(),
        run.request.effectiveValidityDays(),
        enable.caFile(),
        member != null ? enable.memberPkiDir() : enable.apiServerPkiDir(),
        run.rotationId);
  }

  /**
   * The step, or its failure for the phase runner to undo every change of the run and fail naming
   * {@code who}.
   */
  static <T> T guarded(TlsRun run, String who, java.util.function.Supplier<T> step) {
    try {
      return step.get();
    } catch (ActivityFailure | ApplicationFailure e) {
      throw run.undo.failed(e, new TlsFailures.Change(who));
    }
  }

  private static Activities activities(TlsRun run) {
    return run.ctx.activities();
  }
}
