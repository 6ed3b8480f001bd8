package io.etcdrunbooks.workflows.tls;

import io.etcdrunbooks.workflows.activities.ApiServerActivities.SetEtcdClientTlsRequest;
import io.etcdrunbooks.workflows.activities.InventoryActivities.RecordTlsRequest;
import io.etcdrunbooks.workflows.activities.TlsActivities.PlaceCertificatesRequest;
import io.etcdrunbooks.workflows.activities.TlsActivities.PlaceTrustRequest;
import io.etcdrunbooks.workflows.activities.TlsActivities.PlacedCertificates;
import io.etcdrunbooks.workflows.activities.TlsActivities.PlacedTrust;
import io.etcdrunbooks.workflows.activities.TlsActivities.WorkerTrustRequest;
import io.etcdrunbooks.workflows.model.ClientTls;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.ApiServerRollout;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The rotate-ca mode's changing phases around the certificates' own rotation: both CAs trusted by
 * every member (a restart each: etcd reads its trusted CA file only at start, measured on 3.4.23
 * and 3.5.30), every kube-apiserver and the worker; then, after every member serves a certificate
 * from the new CA, kube-apiserver and the worker present theirs from it too, and the old CA is
 * dropped everywhere. Every change registers its undo first, as enabling TLS does.
 */
final class TlsCaRotation {

  private TlsCaRotation() {}

  /** The CA files on every host and the worker's bundle; nothing uses them yet. */
  static void placeTrust(TlsRun run) {
    for (String member : run.members) {
      String beside = run.flags.get(member).value("--trusted-ca-file").orElseThrow();
      run.trust.put(member, place(run, member, null, beside));
    }
    for (String host : activities(run).apiServer.controlPlaneHosts(run.ctx.ref())) {
      PlacedTrust trust = place(run, null, host, null);
      run.controlPlaneTrust.put(host, trust);
      PlaceCertificatesRequest leaf =
          new PlaceCertificatesRequest(
              run.cluster(),
              null,
              host,
              run.request.certificatesDir(),
              run.request.caKeyFile(),
              run.request.effectiveValidityDays(),
              newCa(run).caFile(),
              trust.dir() + "/ca-rotation-" + run.rotationId,
              run.rotationId);
      run.undo.register(
          host + ": placed etcd client certificate",
          () -> activities(run).tls.removePlacedCertificates(leaf));
      run.controlPlanePlaced.put(
          host,
          TlsEnable.guarded(
              run,
              host,
              () ->
                  run.ctx
                      .progress()
                      .record(
                          host + ": etcd client certificate from the new CA in place",
                          () -> activities(run).tls.placeCertificates(leaf))));
    }
    run.workerBundle =
        run.ctx
            .progress()
            .record(
                "the worker's bundle of both CAs",
                () ->
                    activities(run)
                        .tls
                        .workerTrust(
                            new WorkerTrustRequest(
                                run.inventoryTls.caFile(), newCa(run).caFile(), run.rotationId)));
  }

  private static PlacedTrust place(TlsRun run, String member, String host, String beside) {
    String who = member != null ? member : host;
    PlaceTrustRequest request =
        new PlaceTrustRequest(
            run.cluster(),
            member,
            host,
            run.inventoryTls.caFile(),
            newCa(run).caFile(),
            beside,
            run.rotationId);
    run.undo.register(
        who + ": placed CA files", () -> activities(run).tls.removePlacedTrust(request));
    return TlsEnable.guarded(
        run,
        who,
        () ->
            run.ctx
                .progress()
                .record(
                    who + ": both CAs in place", () -> activities(run).tls.placeTrust(request)));
  }

  /** Every member, kube-apiserver and the worker trusts both CAs. */
  static void trustBoth(TlsRun run) {
    for (String member : run.leaderLast()) {
      TlsEnable.restartWith(
          run, member, "trust-both", trustFlags(run, member, PlacedTrust::both), List.of());
    }
    rollOutApiServers(
        run,
        "--etcd-cafile both CAs",
        host -> run.controlPlaneTrust.get(host).both(),
        host -> null);
    recordWorkerTls(run, new ClientTls(run.workerBundle, null, null), run.inventoryTls);
  }

  /**
   * kube-apiserver and the worker present certificates from the new CA; then every member,
   * kube-apiserver and the worker trusts the new CA alone.
   */
  static void trustNew(TlsRun run) {
    rollOutApiServers(
        run,
        "etcd client certificate from the new CA",
        host -> null,
        host -> run.controlPlanePlaced.get(host));
    ClientTls worker = newCa(run).workerTls();
    recordWorkerTls(
        run,
        new ClientTls(null, worker.certFile(), worker.keyFile()),
        new ClientTls(null, run.inventoryTls.certFile(), run.inventoryTls.keyFile()));
    for (String member : run.leaderLast()) {
      TlsEnable.restartWith(
          run, member, "trust-new", trustFlags(run, member, PlacedTrust::onlyNew), List.of());
    }
    rollOutApiServers(
        run,
        "--etcd-cafile the new CA alone",
        host -> run.controlPlaneTrust.get(host).onlyNew(),
        host -> null);
    recordWorkerTls(
        run,
        new ClientTls(worker.caFile(), null, null),
        new ClientTls(run.workerBundle, null, null));
  }

  private static Map<String, String> trustFlags(
      TlsRun run, String member, Function<PlacedTrust, String> which) {
    Map<String, String> flags = new LinkedHashMap<>();
    String file = which.apply(run.trust.get(member));
    flags.put("--trusted-ca-file", file);
    if (run.flags.get(member).value("--peer-trusted-ca-file").isPresent()) {
      flags.put("--peer-trusted-ca-file", file);
    }
    return flags;
  }

  /** Each apiserver's manifest given a CA file and/or a client certificate, one host at a time. */
  private static void rollOutApiServers(
      TlsRun run,
      String what,
      Function<String, String> caFile,
      Function<String, PlacedCertificates> leaf) {
    List<String> changed = new java.util.ArrayList<>();
    run.undo.register(
        "kube-apiservers: " + what + " undone",
        () -> {
          List<String> newestFirst = new java.util.ArrayList<>(changed);
          java.util.Collections.reverse(newestFirst);
          for (String host : newestFirst) {
            ClientTls before = run.controlPlaneTrust.get(host).before();
            activities(run)
                .apiServer
                .setEtcdClientTls(
                    new SetEtcdClientTlsRequest(
                        run.cluster(),
                        host,
                        null,
                        caFile.apply(host) == null ? null : before.caFile(),
                        leaf.apply(host) == null ? null : before.certFile(),
                        leaf.apply(host) == null ? null : before.keyFile()));
            TlsEnable.awaitApiServer(run, host);
          }
          return !changed.isEmpty();
        });
    new ApiServerRollout(run.ctx, run.request.effectiveMemberTimeoutSeconds())
        .run(
            new ApiServerRollout.Edit(
                what,
                host -> {
                  PlacedCertificates files = leaf.apply(host);
                  boolean edited =
                      activities(run)
                          .apiServer
                          .setEtcdClientTls(
                              new SetEtcdClientTlsRequest(
                                  run.cluster(),
                                  host,
                                  null,
                                  caFile.apply(host),
                                  files == null ? null : files.certFile(),
                                  files == null ? null : files.keyFile()));
                  if (edited) changed.add(host);
                  return edited;
                }));
  }

  private static void recordWorkerTls(TlsRun run, ClientTls to, ClientTls back) {
    run.undo.register(
        "the worker's TLS back",
        () ->
            run.ctx
                .progress()
                .record(
                    "inventory: the worker's TLS back",
                    () ->
                        activities(run)
                            .inventory
                            .recordTls(
                                new RecordTlsRequest(
                                    run.cluster(), true, back, Map.of(), Map.of()))));
    TlsEnable.guarded(
        run,
        "the inventory",
        () ->
            run.ctx
                .progress()
                .record(
                    "inventory: the worker's TLS " + to,
                    () ->
                        activities(run)
                            .inventory
                            .recordTls(
                                new RecordTlsRequest(
                                    run.cluster(), true, to, Map.of(), Map.of()))));
  }

  private static RotateCa newCa(TlsRun run) {
    return run.request.rotateCa();
  }

  private static Activities activities(TlsRun run) {
    return run.ctx.activities();
  }
}
