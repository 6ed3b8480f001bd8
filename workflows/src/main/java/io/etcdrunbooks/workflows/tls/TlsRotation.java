package io.etcdrunbooks.workflows.tls;

import io.etcdrunbooks.workflows.activities.TlsActivities.AwaitCertificateRequest;
import io.etcdrunbooks.workflows.activities.TlsActivities.InstallCertificateRequest;
import io.etcdrunbooks.workflows.activities.TlsActivities.PresentedCertificate;
import io.etcdrunbooks.workflows.activities.TlsActivities.RenewCertificateFileRequest;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;

/**
 * The CERTIFICATES phase: each member's files replaced and its new certificate seen served before
 * the next member, the way back of each registered before its files change; a member that fails has
 * the phase runner put the old files back ({@link TlsFailures}).
 */
final class TlsRotation {

  private TlsRotation() {}

  static void rotate(TlsRun run) {
    ProgressTracker progress = run.ctx.progress();
    for (String member : run.members) {
      progress.awaitResumed();
      progress.member(member);
      InstallCertificateRequest request = request(run, member);
      run.undo.register(member + ": old certificate", () -> putBack(run, request));
      try {
        rotateOne(run, member, request);
      } catch (ActivityFailure | ApplicationFailure e) {
        throw run.undo.failed(e, new TlsFailures.Certificate("member " + member));
      }
      run.rotated.add(member);
    }
    for (PresentedCertificate other : run.others) {
      if (!other.use().equals(PresentedCertificate.APISERVER_CLIENT)) continue;
      progress.awaitResumed();
      try {
        renew(run, other, null, other.host());
        TlsEnable.awaitApiServer(run, other.host());
      } catch (ActivityFailure | ApplicationFailure e) {
        throw run.undo.failed(e, new TlsFailures.Certificate("kube-apiserver on " + other.host()));
      }
    }
    progress.member("");
  }

  /**
   * One of kubeadm's other certificates renewed in place, its undo registered first; a member's
   * peer certificate then seen in a handshake on its peer URL.
   */
  private static void renew(
      TlsRun run, PresentedCertificate other, String member, String controlPlaneHost) {
    RenewCertificateFileRequest request =
        new RenewCertificateFileRequest(
            run.cluster(),
            member,
            controlPlaneHost,
            other.file(),
            run.rotationId,
            run.request.caKeyFile(),
            run.request.effectiveValidityDays(),
            run.rotatingCa() ? run.request.rotateCa().caFile() : null);
    String what = other.host() + ": " + other.use() + " " + other.file();
    run.undo.register(
        what + " put back",
        () ->
            run.ctx
                .progress()
                .record(
                    what + ": put the old one back",
                    () -> run.ctx.activities().tls.putCertificateFileBack(request)));
    String fingerprint =
        run.ctx
            .progress()
            .record(
                what + ": renewed", () -> run.ctx.activities().tls.renewCertificateFile(request));
    run.renewedFiles.put(other.host() + ":" + other.file(), fingerprint);
    if (other.use().equals(PresentedCertificate.PEER) && servesPeersOnTls(run, member)) {
      run.ctx
          .progress()
          .run(
              member + ": serves the new peer certificate",
              () ->
                  run.ctx
                      .activities()
                      .tlsWait
                      .awaitServedPeerCertificate(
                          new AwaitCertificateRequest(
                              run.cluster(),
                              member,
                              fingerprint,
                              run.request.effectiveMemberTimeoutSeconds())));
    }
  }

  private static boolean servesPeersOnTls(TlsRun run, String member) {
    return run.flags.get(member).value("--listen-peer-urls").orElse("").contains("https:");
  }

  private static void rotateOne(TlsRun run, String member, InstallCertificateRequest request) {
    ProgressTracker progress = run.ctx.progress();
    int timeout = run.request.effectiveMemberTimeoutSeconds();
    String fingerprint =
        progress.record(
            member + ": new certificate and key in place",
            () -> run.ctx.activities().tls.installCertificate(request));
    run.fingerprints.put(member, fingerprint);
    progress.run(
        member + ": serves the new certificate",
        () ->
            run.ctx
                .activities()
                .tlsWait
                .awaitServedCertificate(
                    new AwaitCertificateRequest(run.cluster(), member, fingerprint, timeout)));
    for (PresentedCertificate other : run.others) {
      if (other.host().equals(member)) renew(run, other, member, null);
    }
    // in an outage the members heal together: health is the postflight's to check
    if (!run.emergency()) run.awaitHealthy(member);
  }

  private static boolean putBack(TlsRun run, InstallCertificateRequest request) {
    return run.ctx
        .progress()
        .record(
            request.member() + ": put the old certificate back",
            () -> run.ctx.activities().tls.putCertificateBack(request));
  }

  private static InstallCertificateRequest request(TlsRun run, String member) {
    TlsRun.Files files = run.files.get(member);
    return new InstallCertificateRequest(
        run.cluster(),
        member,
        run.request.certificatesDir(),
        run.rotationId,
        files.certFile(),
        files.keyFile(),
        run.request.caKeyFile(),
        run.request.effectiveValidityDays(),
        run.rotatingCa() ? run.request.rotateCa().caFile() : null);
  }
}
