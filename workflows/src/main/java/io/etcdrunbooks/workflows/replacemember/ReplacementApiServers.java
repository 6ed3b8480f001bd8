package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.phases.ApiServerRollout;
import io.etcdrunbooks.workflows.phases.KubeadmConfigSync;
import io.temporal.failure.ApplicationFailure;

/**
 * The APISERVERS phase: every kube-apiserver's --etcd-servers lists the new member instead of the
 * failed one, one host at a time ({@link ApiServerRollout}); a failure says what is done and what
 * is not.
 */
final class ReplacementApiServers {

  private ReplacementApiServers() {}

  static void run(ReplaceRun run) {
    run.apiServersUpdated =
        new ApiServerRollout(run.ctx, run.request.effectiveApiServerTimeoutSeconds())
            .run(
                ApiServerRollout.replacingEtcdServer(
                    run.ctx, run.failed().clientUrl(), run.replacement().clientUrl()));
    KubeadmConfigSync.followInventoryMembers(
            run.ctx,
            "%s: %s replaced %s and every kube-apiserver lists it"
                .formatted(run.what(), run.replacement().name(), run.failed().name()))
        .ifPresent(run.notes::add);
  }

  static ApplicationFailure failure(ReplaceRun run, ApiServerRollout.Stopped stopped) {
    String failed = run.failed().name();
    MemberPlacement replacement = run.replacement();
    String changedTo =
        stopped.changed()
            ? " after its --etcd-servers changed to list " + replacement.clientUrl()
            : "";
    String putBack = stopped.putBack().isEmpty() ? "" : " " + stopped.putBack();
    return FailureType.ApiServerUpdateFailed.nonRetryable(
        ("%s: the kube-apiserver on %s did not become healthy%s: %s.%s The etcd side is done and"
                + " recorded: %s replaced %s. Apiservers already on the new set: %s; not yet: %s."
                + " Next: read that apiserver's log, fix it, then start ReplaceMember for %s again"
                + " or edit the remaining manifests by hand")
            .formatted(
                run.what(),
                stopped.host(),
                changedTo,
                stopped.cause(),
                putBack,
                replacement.name(),
                failed,
                stopped.done(),
                stopped.notYet(),
                failed));
  }
}
