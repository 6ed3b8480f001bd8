package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.activities.KubernetesActivities.KubeadmConfigChange;
import io.etcdrunbooks.workflows.activities.KubernetesActivities.KubeadmEtcdEndpointsRequest;
import io.etcdrunbooks.workflows.activities.KubernetesActivities.KubeadmEtcdImageRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.temporal.failure.ActivityFailure;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Keeps kubeadm's kube-system/kubeadm-config in step with a change a runbook made to etcd (the
 * members' image, the members' client URLs), through the Kubernetes API: otherwise the next {@code
 * kubeadm join --control-plane} or {@code kubeadm upgrade} undoes the change. A cluster without a
 * kubeconfig in the inventory is skipped, and the step says what to set by hand. A failure ends the
 * runbook as {@link FailureType#KubeadmConfigNotUpdated}: the etcd side is done and stays.
 */
public final class KubeadmConfigSync {

  private KubeadmConfigSync() {}

  /** Whether this run keeps kubeadm-config in step (runs started before the change do not). */
  public static boolean applies() {
    return PhasePatches.KUBEADM_CONFIG.applies();
  }

  /**
   * kubeadm-config's etcd image set to this version's.
   *
   * @param done what is already done on the etcd side, for the failure ("m1, m2, m3 run 3.5.16")
   * @return what became of kubeadm-config, empty in runs started before the change
   */
  public static Optional<String> followVersion(RunContext ctx, String version, String done) {
    if (!applies()) return Optional.empty();
    return Optional.of(
        sync(
            ctx,
            "kube-system/kubeadm-config: etcd image of " + version,
            done,
            () ->
                ctx.activities()
                    .kubernetes
                    .setKubeadmEtcdImage(new KubeadmEtcdImageRequest(ctx.cluster(), version))));
  }

  /**
   * kubeadm-config's external etcd endpoints set to these client URLs (stacked etcd: nothing).
   *
   * @return what became of kubeadm-config, empty in runs started before the change
   */
  public static Optional<String> followEndpoints(
      RunContext ctx, List<String> endpoints, String done) {
    if (!applies()) return Optional.empty();
    return Optional.of(
        sync(
            ctx,
            "kube-system/kubeadm-config: etcd endpoints " + endpoints,
            done,
            () ->
                ctx.activities()
                    .kubernetes
                    .setKubeadmEtcdEndpoints(
                        new KubeadmEtcdEndpointsRequest(ctx.cluster(), endpoints))));
  }

  /**
   * As {@link #followEndpoints}, with the client URLs of the inventory's members (which the runbook
   * has recorded by then).
   */
  public static Optional<String> followInventoryMembers(RunContext ctx, String done) {
    if (!applies()) return Optional.empty();
    List<String> endpoints =
        ctx.progress()
            .record(
                "members in the inventory",
                () ->
                    ctx.activities().inventory.members(ctx.ref()).stream()
                        .map(MemberPlacement::clientUrl)
                        .toList());
    return followEndpoints(ctx, endpoints, done);
  }

  private static String sync(
      RunContext ctx, String step, String done, Supplier<KubeadmConfigChange> call) {
    KubeadmConfigChange change;
    try {
      change = ctx.progress().record(step, call);
    } catch (ActivityFailure e) {
      throw FailureType.KubeadmConfigNotUpdated.nonRetryable(
          ("%s. %s: %s. The change to etcd is done and stays; bring kubeadm-config in step by hand"
                  + " (kubectl -n kube-system edit cm kubeadm-config), or the next kubeadm join"
                  + " --control-plane or kubeadm upgrade undoes it")
              .formatted(done, step, Failures.rootMessage(e)));
    }
    ctx.progress().message(change.detail());
    return change.detail();
  }
}
