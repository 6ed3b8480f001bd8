package io.etcdrunbooks.workflows.migrate;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.phases.Compensation;
import io.etcdrunbooks.workflows.phases.FailureMapping;
import io.etcdrunbooks.workflows.phases.PhaseFailed;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.CanceledFailure;
import java.util.function.Consumer;

/**
 * How a migration fails once it has touched something. Before the first kube-apiserver reads v3,
 * the phase runner runs the registered undos (COMPENSATE) and the runbook ends MigrationRolledBack:
 * v2 as it was, members and apiservers running on it. After that, or when an undo fails, it ends
 * MigrationFailed naming what it left and what to do.
 */
final class MigrateFailure implements FailureMapping<MigrateRun> {

  /** The phase a failure stopped the migration in. */
  private record StoppedIn(Phase phase) {}

  static Consumer<MigrateRun> compensating(Consumer<MigrateRun> phase) {
    return run -> {
      try {
        phase.accept(run);
      } catch (ActivityFailure | ApplicationFailure | CanceledFailure e) {
        if (e instanceof ApplicationFailure af && ours(af)) throw e;
        if (run.pastNoReturn()) throw stuck(run, e);
        if (run.undo.isEmpty()) throw e; // nothing changed yet
        throw run.undo.failed(e, new StoppedIn(run.ctx.progress().phase()));
      }
    };
  }

  private static boolean ours(ApplicationFailure af) {
    return FailureType.MigrationFailed.name().equals(af.getType())
        || FailureType.MigrationRolledBack.name().equals(af.getType());
  }

  @Override
  public RuntimeException failure(
      MigrateRun run, PhaseFailed failed, Compensation.Outcome outcome) {
    String phase = ((StoppedIn) failed.what()).phase().name();
    String cause = Failures.rootMessage(failed.failure());
    if (outcome.stoppedAt().isEmpty()) {
      return FailureType.MigrationRolledBack.nonRetryable(
          ("%s stopped in phase %s: %s. The cluster is back on v2, put back: %s. The data dir"
                  + " copies stay at %s. Next: fix the cause, then run the migration again")
              .formatted(run.what(), phase, cause, outcome.undone(), run.copies));
    }
    Compensation.UndoFailed e = outcome.stoppedAt().get();
    return FailureType.MigrationFailed.nonRetryable(
        ("%s stopped in phase %s: %s. Putting v2 back failed too at '%s' (%s) after %s. Left:"
                + " data dir copies at %s (the migrated data dirs beside them as"
                + " *.after-migrate-%s), kube-apiservers stopped: %s. Next: put each copy back"
                + " as the member's data dir by hand, start the members, then start the"
                + " kube-apiservers (their manifests are hidden .etcd-runbooks.stopped files"
                + " beside the manifest path)")
            .formatted(
                run.what(),
                phase,
                cause,
                e.what(),
                Failures.rootMessage(e.getCause()),
                e.undoneBefore(),
                run.copies,
                run.migrationId,
                run.apiServersStopped));
  }

  private static ApplicationFailure stuck(MigrateRun run, RuntimeException cause) {
    return FailureType.MigrationFailed.nonRetryable(
        ("%s stopped in phase %s: %s. kube-apiservers already reading v3: %s, so v2 is not put"
                + " back (their writes exist only in v3); still stopped: %s. Next: fix the cause,"
                + " then on each stopped host set --storage-backend=etcd3 in the hidden"
                + " .etcd-runbooks.stopped manifest and move it back to the manifest path%s")
            .formatted(
                run.what(),
                run.ctx.progress().phase(),
                Failures.rootMessage(cause),
                run.apiServersSwitched,
                run.apiServersStopped,
                run.cleared == 0 && run.ctx.progress().phase() == Phase.CLEAR_V2
                    ? "; the v2 keys were not cleared: delete "
                        + (run.etcdPrefix == null ? "them" : run.etcdPrefix + " (only that prefix)")
                        + " once every apiserver reads v3"
                    : ""));
  }
}
