package io.etcdrunbooks.workflows.tls;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.phases.ApiServerRollout;
import io.etcdrunbooks.workflows.phases.Compensation;
import io.etcdrunbooks.workflows.phases.FailureMapping;
import io.etcdrunbooks.workflows.phases.PhaseFailed;
import java.util.List;

/**
 * How ReconfigureTls fails once it has changed something: every change of the run undone, newest
 * first, by the phase runner, and the failure (TlsRolledBack, or TlsFailed when an undo failed)
 * names who did not take the change and what was put back.
 */
final class TlsFailures implements FailureMapping<TlsRun> {

  /** An enabling or CA-rotating step that {@code who} did not take. */
  record Change(String who) {}

  /**
   * A member ({@code who}: "member m2") or kube-apiserver that did not take its new certificate.
   */
  record Certificate(String who) {}

  /** Cancelled at the hold for unmanaged clients, which were {@code found}. */
  record HoldCancelled(List<String> found) {}

  @Override
  public RuntimeException failure(TlsRun run, PhaseFailed failed, Compensation.Outcome outcome) {
    String cause = Failures.rootMessage(failed.failure());
    Object what = failed.what();
    if (what instanceof Certificate c) return certificate(run, c.who(), cause, outcome);
    if (what instanceof HoldCancelled h) return holdCancelled(run, h.found(), outcome);
    String who =
        what instanceof ApiServerRollout.Unhealthy u
            ? "kube-apiserver on " + u.host()
            : ((Change) what).who();
    return change(run, who, cause, outcome);
  }

  private static RuntimeException change(
      TlsRun run, String who, String cause, Compensation.Outcome outcome) {
    return outcome
        .stoppedAt()
        .map(
            e ->
                FailureType.TlsFailed.nonRetryable(
                    ("%s: %s did not take the change: %s. Undoing the changes failed at '%s' (%s)"
                            + " after %s: finish by hand (docs/runbooks/reconfigure-tls.md: each"
                            + " member's flags file has its previous copy as"
                            + " <file>.before-%s-<step>)")
                        .formatted(
                            run.what(),
                            who,
                            cause,
                            e.what(),
                            Failures.rootMessage(e.getCause()),
                            e.undoneBefore(),
                            run.rotationId)))
        .orElseGet(
            () ->
                FailureType.TlsRolledBack.nonRetryable(
                    ("%s: %s did not take %s: %s. Every change was undone, newest first: %s; the"
                            + " cluster %s as before. Next: check the certificates and %s's log,"
                            + " then run the runbook again")
                        .formatted(
                            run.what(),
                            who,
                            run.enabling() ? "TLS" : "the new CA",
                            cause,
                            outcome.undone(),
                            run.enabling() ? "serves http" : "trusts the old CA",
                            who)));
  }

  private static RuntimeException certificate(
      TlsRun run, String who, String cause, Compensation.Outcome outcome) {
    return outcome
        .stoppedAt()
        .map(
            e ->
                FailureType.TlsFailed.nonRetryable(
                    ("%s: %s did not take its new certificate: %s. Putting the old one back failed"
                            + " at '%s' (%s) after %s: put <file>.before-%s back over the member's"
                            + " certificate and key by hand")
                        .formatted(
                            run.what(),
                            who,
                            cause,
                            e.what(),
                            Failures.rootMessage(e.getCause()),
                            e.undoneBefore(),
                            run.rotationId)))
        .orElseGet(
            () ->
                FailureType.TlsRolledBack.nonRetryable(
                    ("%s: %s did not take its new certificate: %s. Old certificates put back: %s."
                            + " Next: check the certificate and the member's log, then run the"
                            + " runbook again")
                        .formatted(run.what(), who, cause, outcome.undone())));
  }

  private static RuntimeException holdCancelled(
      TlsRun run, List<String> found, Compensation.Outcome outcome) {
    String step = UnmanagedClientsHold.STEP;
    return outcome
        .stoppedAt()
        .map(
            e ->
                FailureType.TlsFailed.nonRetryable(
                    ("%s: cancelled at the %s. Undoing the changes failed at '%s' (%s) after %s:"
                            + " finish by hand (docs/runbooks/reconfigure-tls.md: each member's"
                            + " flags file has its previous copy as <file>.before-%s-<step>)")
                        .formatted(
                            run.what(),
                            step,
                            e.what(),
                            Failures.rootMessage(e.getCause()),
                            e.undoneBefore(),
                            run.rotationId)))
        .orElseGet(
            () ->
                FailureType.TlsRolledBack.nonRetryable(
                    ("%s: cancelled at the %s (%s). Every change was undone, newest first: %s;"
                            + " the cluster %s as before. Next: move those clients to %s, or stop"
                            + " them, then run the runbook again")
                        .formatted(
                            run.what(),
                            step,
                            String.join("; ", found),
                            outcome.undone(),
                            run.enabling() ? "serves http" : "trusts the old CA",
                            run.enabling() ? "https with a client certificate" : "the new CA")));
  }
}
