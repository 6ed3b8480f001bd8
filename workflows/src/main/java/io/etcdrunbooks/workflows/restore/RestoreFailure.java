package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import java.util.function.Consumer;

/**
 * How a restore fails once it has stopped something. Nothing is undone: the data dirs are kept
 * aside and the kube-apiservers stay stopped (apiservers on a half-restored etcd would serve from
 * it), and the failure says so; the restore started again finishes the work, restoring the members
 * again from the same backup.
 */
final class RestoreFailure {

  private RestoreFailure() {}

  /**
   * The phase body, failing as RestoreFailed naming the phase, the cause and what the restore has
   * left.
   */
  static Consumer<RestoreRun> naming(Consumer<RestoreRun> phase) {
    return run -> {
      try {
        phase.accept(run);
      } catch (ActivityFailure | ApplicationFailure e) {
        if (e instanceof ApplicationFailure af
            && FailureType.RestoreFailed.name().equals(af.getType())) throw e;
        throw FailureType.RestoreFailed.nonRetryable(
            ("%s stopped in phase %s: %s. %s Next: fix the cause, then start the restore again"
                    + " (members restored already are restored again from the same backup)")
                .formatted(
                    run.whatFromBackup(),
                    run.ctx.progress().phase(),
                    Failures.rootMessage(e),
                    leftBehind(run)));
      }
    };
  }

  /**
   * "Data dirs from before the restore are kept aside: {...}; kube-apiservers still stopped: [...]
   * (...)."
   */
  static String leftBehind(RestoreRun run) {
    String left =
        ("Data dirs from before the restore are kept aside: %s; kube-apiservers still stopped:"
                + " %s (their manifests are hidden .etcd-runbooks.stopped files beside the manifest"
                + " path).")
            .formatted(run.keptAside, run.apiServersStopped);
    if (!run.ontoNewHosts) return left;
    // a new run finds the new hosts taken: the operator has to know which these are
    return left
        + (" Onto new hosts %s: the old members %s still run the old cluster, untouched; a"
                + " restore started again needs the new hosts cleared first (etcd stopped, data dirs"
                + " moved away), and the inventory names the new members from INVENTORY on.")
            .formatted(RestoreNewHosts.initialCluster(run.members), run.oldMembersLeftRunning());
  }
}
