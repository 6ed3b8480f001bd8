package io.etcdrunbooks.workflows.recover;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import java.util.function.Consumer;

/**
 * How a recovery fails once it has changed something. Nothing is put back: the survivor's data dir
 * copy is the way back, and apiservers stay stopped while the cluster is not whole. The failure
 * names the phase, the cause, what is done and where things are; started again, the runbook goes on
 * from the cluster as it finds it.
 */
final class RecoverFailure {

  private RecoverFailure() {}

  static Consumer<RecoverRun> naming(Consumer<RecoverRun> phase) {
    return run -> {
      try {
        phase.accept(run);
      } catch (ActivityFailure | ApplicationFailure e) {
        if (e instanceof ApplicationFailure af
            && FailureType.RecoverFailed.name().equals(af.getType())) throw e;
        throw FailureType.RecoverFailed.nonRetryable(
            "%s stopped in phase %s: %s. %s Next: %s"
                .formatted(
                    run.what(),
                    run.ctx.progress().phase(),
                    Failures.rootMessage(e),
                    state(run),
                    next(run)));
      }
    };
  }

  private static String next(RecoverRun run) {
    if (!run.forcedNewCluster)
      return "fix the cause, then start RecoverQuorum again; the survivor's data dir copy is the"
          + " way back if the survivor's own data dir was harmed";
    if (run.apiServersStopped.isEmpty())
      return ("the cluster serves again, on %s and the members rebuilt so far, and the"
              + " kube-apiservers run on it: fix the cause, then replace each member still missing"
              + " (%s) with ReplaceMember, one at a time (it skips the removal)")
          .formatted(run.survivor.name(), missing(run));
    return ("the cluster runs again, on %s and the members rebuilt so far: fix the cause, then"
            + " replace each lost member not yet rebuilt with ReplaceMember (it skips the removal),"
            + " and bring the kube-apiservers back (move each .etcd-runbooks.stopped manifest back)")
        .formatted(run.survivor.name());
  }

  static String state(RecoverRun run) {
    return ("Survivor: %s; its data dir copy: %s; members rebuilt: %s; lost members still"
            + " missing: %s; kube-apiservers running again: %s; still stopped: %s (their manifests"
            + " are hidden .etcd-runbooks.stopped files beside the manifest path).")
        .formatted(
            run.survivor == null ? "none" : run.survivor.name(),
            run.dataDirCopy.isEmpty() ? "not made yet" : run.dataDirCopy,
            run.rebuilt,
            missing(run),
            run.apiServersRestarted,
            run.apiServersStopped);
  }

  private static java.util.List<String> missing(RecoverRun run) {
    return run.rebuildAs.keySet().stream().filter(m -> !run.rebuilt.containsKey(m)).toList();
  }
}
