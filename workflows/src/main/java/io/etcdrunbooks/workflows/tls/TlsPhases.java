package io.etcdrunbooks.workflows.tls;

import static io.etcdrunbooks.workflows.phases.RunbookPhase.always;
import static io.etcdrunbooks.workflows.phases.RunbookPhase.when;

import io.etcdrunbooks.workflows.activities.TlsActivities.PlainHttpRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.phases.PhaseRunner;
import io.etcdrunbooks.workflows.phases.PostflightCheck;
import java.util.List;

/** The ReconfigureTls runbook, phase by phase. */
public final class TlsPhases {

  // long on purpose: a declarative table, one entry per phase with its documented description
  public static final PhaseRunner<TlsRun> RUNNER =
      new PhaseRunner<TlsRun>(
              always(
                  Phase.DISCOVER,
                  "checks the request, then reads the cluster and each running member's flags (the"
                      + " certificate and key it serves; enabling, the URLs it listens on) and,"
                      + " enabling, the members' URLs in the inventory",
                  TlsPreflight::discover),
              always(
                  Phase.PREFLIGHT,
                  "refuses, touching nothing, unless every member is healthy, every new"
                      + " certificate has its key, chains to the CA, covers the member's addresses"
                      + " and outlives the expiry window (enabling, the worker's and kube-apiserver's"
                      + " client certificates too) and every host can be logged in to; rotating,"
                      + " every member serves TLS; the certificates members and kube-apiservers present"
                      + " besides the serving ones (kubeadm's peer, healthcheck client and"
                      + " apiserver-etcd-client ones) are read with their expiry, to renew from the CA"
                      + " key, or refused each named with its expiry from certificatesDir (with"
                      + " emergency, etcd is not asked and health not checked);"
                      + " enabling, the URLs to move are http, every"
                      + " member's flags file can be edited and the inventory written",
                  TlsPreflight::run),
              always(
                  Phase.PLAN,
                  "names each member's files and the new certificates, and each other certificate"
                      + " renewed with its expiry, or, enabling, the steps and the members' restart"
                      + " order (a dry run of enable on client URLs or rotate-ca: also the clients"
                      + " connected now that TLS_ONLY or TRUST_NEW would hold for); a dry run ends"
                      + " here",
                  run -> {
                    TlsPreflight.plan(run);
                    UnmanagedClientsHold.inPlan(run);
                  }),
              when(
                  Phase.AWAITING_APPROVAL,
                  "waits for an operator's approve (requireApproval)",
                  run -> run.changes() && run.request.requireApproval(),
                  run ->
                      run.ctx
                          .approval()
                          .awaitApproval(
                              "the first member's certificate is replaced", () -> false)),
              when(
                  Phase.PLACE_CERTIFICATES,
                  "enable: the CA, each member's certificate and key (mode 0600, owned as its data"
                      + " dir) on its host, and kube-apiserver's etcd client certificate on every"
                      + " control-plane host, as kubeadm lays them out; files there before kept."
                      + " rotate-ca: a file of both CAs and one of the new CA beside every member's"
                      + " and kube-apiserver's CA file, kube-apiserver's client certificate from"
                      + " the new CA, the worker's bundle of both",
                  run -> run.changes() && (run.enabling() || run.rotatingCa()),
                  run -> {
                    if (run.enabling()) TlsEnable.placeCertificates(run);
                    else TlsCaRotation.placeTrust(run);
                  }),
              when(
                  Phase.BOTH_SCHEMES,
                  "enable, client URLs: each member restarted, leader last, serving its client"
                      + " port on http and https, its new certificate seen in a real handshake; the"
                      + " inventory gives its https URL and the worker's client certificate first,"
                      + " so every later runbook talks TLS",
                  run -> enables(run) && run.enablingClients(),
                  TlsEnable::bothSchemes),
              when(
                  Phase.APISERVERS,
                  "enable, client URLs: every kube-apiserver given https --etcd-servers and"
                      + " --etcd-cafile, --etcd-certfile, --etcd-keyfile in one manifest edit, one"
                      + " host at a time, healthy before the next",
                  run -> enables(run) && run.enablingClients(),
                  TlsEnable::apiServers),
              when(
                  Phase.TLS_ONLY,
                  "enable: for client URLs, first every member's client connections listed"
                      + " (its host's established TCP connections) and, when one comes from an"
                      + " address that is not a member's, a kube-apiserver host's or the worker's"
                      + " (or they cannot be listed), a hold for an approval naming them"
                      + " (AWAITING_APPROVAL; not with ignoreUnmanagedClients; a cancel there undoes"
                      + " the run); then each member restarted, leader last, serving clients on"
                      + " https only and, for peer URLs, given its certificate to dial peers (etcd"
                      + " 3.4 stops answering gRPC on http when given it while serving both"
                      + " schemes)",
                  TlsPhases::enables,
                  run -> {
                    if (run.enablingClients()) {
                      UnmanagedClientsHold.before(
                          run,
                          Phase.TLS_ONLY,
                          "each member restarted serving clients on https only, which cuts plain"
                              + " http off");
                    }
                    TlsEnable.tlsOnly(run);
                  }),
              when(
                  Phase.PEER_TLS,
                  "enable, peer URLs: each member, leader last, given an https peer URL with member"
                      + " update, then restarted listening on it; then the inventory's peer URLs",
                  run -> enables(run) && run.enablingPeers(),
                  TlsEnable::peerTls),
              when(
                  Phase.TRUST_BOTH,
                  "rotate-ca: each member restarted, leader last, trusting both CAs (etcd reads"
                      + " its trusted CA file only at start), then every kube-apiserver given both"
                      + " as --etcd-cafile, one host at a time, and the worker",
                  run -> run.changes() && run.rotatingCa(),
                  TlsCaRotation::trustBoth),
              when(
                  Phase.CERTIFICATES,
                  "rotate-certificates and rotate-ca: one member at a time, its certificate and key"
                      + " replaced atomically (the old ones"
                      + " kept), then the new certificate seen in a real handshake and the member"
                      + " healthy before the next (emergency: the handshake alone); from the CA key, its"
                      + " own peer certificate (then seen on its peer URL) and healthcheck client"
                      + " certificate renewed before its health check, each like the old one and for"
                      + " its key, and after every member each kube-apiserver's etcd client certificate,"
                      + " the kube-apiserver healthy before the next; etcd reads its files again for"
                      + " every handshake, so no member restarts",
                  run -> run.changes() && !run.enabling(),
                  TlsRotation::rotate),
              when(
                  Phase.TRUST_NEW,
                  "rotate-ca: first every member's client connections listed and held for an"
                      + " approval as in TLS_ONLY; then kube-apiserver and the worker present"
                      + " certificates from the new CA; then each member restarted, leader last,"
                      + " trusting the new CA alone, every kube-apiserver and the worker too",
                  run -> run.changes() && run.rotatingCa(),
                  run -> {
                    UnmanagedClientsHold.before(
                        run,
                        Phase.TRUST_NEW,
                        "each member restarted trusting the new CA alone, which cuts off every"
                            + " client presenting a certificate from the old one");
                    TlsCaRotation.trustNew(run);
                  }),
              when(
                  Phase.POSTFLIGHT,
                  "every member healthy and serving its new certificate, raft indexes and hashkv"
                      + " equal; enabling, no member answers plain http on a URL moved to TLS",
                  TlsRun::changes,
                  TlsPhases::postflight),
              always(
                  Phase.DONE,
                  "the result: each member's certificate fingerprint and expiry",
                  TlsPhases::done))
          .compensatingIn(
              Phase.COMPENSATE,
              "a member that does not serve its new certificate, or is not healthy with it, gets"
                  + " its old files back, and so does every member rotated before it and every other"
                  + " certificate renewed; enabling,"
                  + " every change of the run is undone, newest first (flags, peer URLs,"
                  + " manifests, inventory, files), and the cluster serves http as before",
              new TlsFailures());

  private TlsPhases() {}

  private static boolean enables(TlsRun run) {
    return run.changes() && run.enabling();
  }

  private static void postflight(TlsRun run) {
    PostflightCheck.Found found =
        PostflightCheck.check(run.ctx, state -> run.enabling() ? stillPlain(run) : List.of());
    run.notAfter =
        found.state().certificates() == null
            ? java.util.Map.of()
            : found.state().certificates().notAfterByMember();
    if (!found.problems().isEmpty()) {
      throw PostflightCheck.failed(
          run.what(),
          found.problems(),
          FailureType.PostflightFailed,
          run.enabling()
              ? "Every member keeps its TLS settings; each flags file's earlier copies are kept as"
                  + " <file>.before-"
                  + run.rotationId
                  + "-<step>."
              : "Every member's new certificate stays in place; the old files are kept as"
                  + " <file>.before-"
                  + run.rotationId
                  + ".");
    }
  }

  /** Enabling: every URL that still answers plain http. */
  private static List<String> stillPlain(TlsRun run) {
    List<String> problems = new java.util.ArrayList<>();
    for (String member : run.members) {
      List<String> plain =
          run.ctx
              .activities()
              .tls
              .plainHttpServed(
                  new PlainHttpRequest(
                      run.cluster(), member, run.enablingClients(), run.enablingPeers()));
      if (!plain.isEmpty()) {
        problems.add("member %s still answers plain http on %s".formatted(member, plain));
      }
    }
    return problems;
  }

  private static void done(TlsRun run) {
    if (run.changes()) {
      run.ctx
          .progress()
          .message(
              "new certificates served by %s, valid until %s%s"
                  .formatted(
                      run.rotated,
                      run.notAfter,
                      run.renewedFiles.isEmpty()
                          ? ""
                          : "; renewed with them: " + run.renewedFiles.keySet()));
    }
  }
}
