package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.activities.ApiServerActivities.AwaitApiServerRequest;
import io.etcdrunbooks.workflows.activities.ApiServerActivities.ControlPlaneRef;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.phases.Activities;

/**
 * The kube-apiservers around a restore, as the Kubernetes documentation asks: every one stopped
 * before the first member (STOP_APISERVERS), and brought back one host at a time once the restored
 * cluster passed its checks (APISERVERS).
 */
final class RestoreApiServers {

  private RestoreApiServers() {}

  static void stop(RestoreRun run) {
    ProgressTracker progress = run.ctx.progress();
    Activities activities = run.ctx.activities();
    int timeout = run.request.effectiveApiServerTimeoutSeconds();
    progress.stopIfCancelled("the kube-apiservers and members are stopped");
    for (String host : run.controlPlane) {
      progress.member(host);
      progress.run(
          host + ": stop kube-apiserver",
          () -> activities.apiServer.stopApiServer(new ControlPlaneRef(run.cluster(), host)));
      run.apiServersStopped.add(host);
      progress.run(
          host + ": kube-apiserver gone",
          () ->
              activities.apiServerWait.awaitStopped(
                  new AwaitApiServerRequest(run.cluster(), host, timeout)));
    }
  }

  static void bringBack(RestoreRun run) {
    ProgressTracker progress = run.ctx.progress();
    Activities activities = run.ctx.activities();
    int timeout = run.request.effectiveApiServerTimeoutSeconds();
    for (String host : run.controlPlane) {
      progress.member(host);
      progress.run(
          host + ": start kube-apiserver",
          () -> activities.apiServer.startApiServer(new ControlPlaneRef(run.cluster(), host)));
      progress.run(
          host + ": kube-apiserver healthy",
          () ->
              activities.apiServerWait.awaitHealthy(
                  new AwaitApiServerRequest(run.cluster(), host, timeout)));
      run.apiServersStopped.remove(host);
      run.apiServersRestarted.add(host);
    }
    progress.member("");
  }
}
