package io.etcdrunbooks.workflows.tls;

import static io.etcdrunbooks.workflows.phases.RunbookPhase.always;
import static io.etcdrunbooks.workflows.phases.RunbookPhase.when;

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
                  "checks the request, then reads the cluster and, from each running member's"
                      + " flags, the certificate and key files it serves",
                  TlsPreflight::discover),
              always(
                  Phase.PREFLIGHT,
                  "refuses, touching nothing, unless every member is healthy and serves TLS, every"
                      + " new certificate has its key, chains to the cluster's CA, covers the"
                      + " member's addresses and outlives the expiry window, and every host can be"
                      + " logged in to",
                  TlsPreflight::run),
              always(
                  Phase.PLAN,
                  "names each member's files and the new certificates; a dry run ends here",
                  TlsPreflight::plan),
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
                  Phase.CERTIFICATES,
                  "one member at a time: its certificate and key replaced atomically (the old ones"
                      + " kept), then the new certificate seen in a real handshake and the member"
                      + " healthy before the next; etcd reads its files again for every handshake,"
                      + " so no member restarts",
                  TlsRun::changes,
                  TlsRotation::rotate),
              when(
                  Phase.POSTFLIGHT,
                  "every member healthy and serving its new certificate, raft indexes and hashkv"
                      + " equal",
                  TlsRun::changes,
                  TlsPhases::postflight),
              always(
                  Phase.DONE,
                  "the result: each member's certificate fingerprint and expiry",
                  TlsPhases::done))
          .compensatingIn(
              Phase.COMPENSATE,
              "a member that does not serve its new certificate, or is not healthy with it, gets"
                  + " its old files back, and so does every member rotated before it");

  private TlsPhases() {}

  private static void postflight(TlsRun run) {
    PostflightCheck.Found found = PostflightCheck.check(run.ctx, state -> List.of());
    run.notAfter =
        found.state().certificates() == null
            ? java.util.Map.of()
            : found.state().certificates().notAfterByMember();
    if (!found.problems().isEmpty()) {
      throw PostflightCheck.failed(
          run.what(),
          found.problems(),
          FailureType.PostflightFailed,
          "Every member's new certificate stays in place; the old files are kept as"
              + " <file>.before-"
              + run.rotationId
              + ".");
    }
  }

  private static void done(TlsRun run) {
    if (run.changes()) {
      run.ctx
          .progress()
          .message(
              "new certificates served by %s, valid until %s".formatted(run.rotated, run.notAfter));
    }
  }
}
