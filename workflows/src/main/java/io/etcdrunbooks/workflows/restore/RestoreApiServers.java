package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.activities.ApiServerActivities.ControlPlaneRef;
import io.etcdrunbooks.workflows.activities.RestoreActivities.PutBackEncryptionConfigRequest;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.ApiServersOffline;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.util.List;

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
        host -> {
          if (run.ontoNewHosts) RestoreNewHosts.pointApiServer(run, host);
          if (run.checksEncryptionConfig && run.request.putBackEncryptionConfig())
            putBackEncryptionConfig(run, host);
        },
        run.apiServersStopped,
        run.apiServersRestarted);
    run.restartsControllers = RestorePatches.RESTART_CONTROLLERS.applies();
    if (run.restartsControllers) restartControllers(run);
  }

  private static void putBackEncryptionConfig(RestoreRun run, String host) {
    boolean written =
        run.ctx
            .progress()
            .record(
                host + ": the backup's EncryptionConfiguration where the keys lack",
                () ->
                    run.ctx
                        .activities()
                        .restore
                        .putBackEncryptionConfig(
                            new PutBackEncryptionConfigRequest(
                                run.cluster(), host, run.backup.id(), run.restoreId)));
    if (written) run.encryptionConfigPutBack.add(host);
  }

  /**
   * Seed 001: kube-controller-manager and kube-scheduler hold informers on resource versions the
   * restored cluster may not have: every host's are stopped together (kubelet stops a static pod
   * whose manifest left its directory at its next file check, every 20 s by default; the request's
   * controllersOutSeconds, 25 s unless set) and started again. A resumed run puts back what a crash
   * left out.
   */
  private static void restartControllers(RestoreRun run) {
    ProgressTracker progress = run.ctx.progress();
    Activities activities = run.ctx.activities();
    boolean anyOut = false;
    for (String host : run.controlPlane) {
      List<String> out =
          progress.record(
              host + ": move kube-controller-manager and kube-scheduler out",
              () ->
                  activities.apiServer.moveControllersOut(
                      new ControlPlaneRef(run.cluster(), host)));
      anyOut |= !out.isEmpty();
    }
    if (anyOut) Workflow.sleep(Duration.ofSeconds(run.request.effectiveControllersOutSeconds()));
    for (String host : run.controlPlane) {
      List<String> back =
          progress.record(
              host + ": put kube-controller-manager and kube-scheduler back",
              () ->
                  activities.apiServer.putControllersBack(
                      new ControlPlaneRef(run.cluster(), host)));
      back.forEach(manifest -> run.controllersRestarted.add(host + ": " + manifest));
    }
  }
}
