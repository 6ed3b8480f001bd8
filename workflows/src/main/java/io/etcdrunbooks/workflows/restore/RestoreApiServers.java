package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.phases.ApiServersOffline;

/**
 * The kube-apiservers around a restore ({@link ApiServersOffline}): every one stopped before the
 * first member (STOP_APISERVERS), and brought back one host at a time once the restored cluster
 * passed its checks (APISERVERS).
 */
final class RestoreApiServers {

  private RestoreApiServers() {}

  static void stop(RestoreRun run) {
    run.ctx.progress().stopIfCancelled("the kube-apiservers and members are stopped");
    ApiServersOffline.stop(
        run.ctx,
        run.controlPlane,
        run.request.effectiveApiServerTimeoutSeconds(),
        run.apiServersStopped);
  }

  static void bringBack(RestoreRun run) {
    ApiServersOffline.bringBack(
        run.ctx,
        run.controlPlane,
        run.request.effectiveApiServerTimeoutSeconds(),
        host -> {},
        run.apiServersStopped,
        run.apiServersRestarted);
  }
}
