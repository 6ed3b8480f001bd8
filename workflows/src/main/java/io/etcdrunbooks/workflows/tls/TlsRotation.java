package io.etcdrunbooks.workflows.tls;

import io.etcdrunbooks.workflows.activities.TlsActivities.AwaitCertificateRequest;
import io.etcdrunbooks.workflows.activities.TlsActivities.InstallCertificateRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.phases.Compensation;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;

/**
 * The CERTIFICATES phase: each member's files replaced and its new certificate seen served before
 * the next member, the way back of each registered before its files change.
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
        throw compensate(run, member, e);
      }
      run.rotated.add(member);
    }
    progress.member("");
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
    // in an outage the members heal together: health is the postflight's to check
    if (!run.emergency()) run.awaitHealthy(member);
  }

  private static ApplicationFailure compensate(TlsRun run, String member, RuntimeException cause) {
    run.ctx.progress().phase(Phase.COMPENSATE);
    try {
      Compensation.Outcome outcome = run.undo.undo();
      return FailureType.TlsRolledBack.nonRetryable(
          ("%s: member %s did not take its new certificate: %s. Old certificates put back: %s."
                  + " Next: check the certificate and the member's log, then run the runbook again")
              .formatted(run.what(), member, Failures.rootMessage(cause), outcome.undone()));
    } catch (Compensation.UndoFailed e) {
      return FailureType.TlsFailed.nonRetryable(
          ("%s: member %s did not take its new certificate: %s. Putting the old one back failed"
                  + " at '%s' (%s) after %s: put <file>.before-%s back over the member's"
                  + " certificate and key by hand")
              .formatted(
                  run.what(),
                  member,
                  Failures.rootMessage(cause),
                  e.what(),
                  Failures.rootMessage(e.getCause()),
                  e.undoneBefore(),
                  run.rotationId));
    }
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
