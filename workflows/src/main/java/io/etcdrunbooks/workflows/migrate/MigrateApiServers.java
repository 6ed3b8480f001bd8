package io.etcdrunbooks.workflows.migrate;

import io.etcdrunbooks.workflows.activities.ApiServerActivities.AwaitApiServerRequest;
import io.etcdrunbooks.workflows.activities.ApiServerActivities.ControlPlaneRef;
import io.etcdrunbooks.workflows.activities.ApiServerActivities.SetStorageBackendRequest;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.phases.Activities;
import java.util.ArrayList;

/**
 * The kube-apiservers around a migration: every one stopped before the first member, so that
 * nothing writes to v2 after its copy (STOP_APISERVERS); then each switched to {@code
 * --storage-backend=etcd3} while still stopped, started and healthy before the next (APISERVERS).
 * The first one healthy on v3 is the point of no return: its writes exist only in v3, so the undos
 * are dropped there.
 */
final class MigrateApiServers {

  private MigrateApiServers() {}

  static void stop(MigrateRun run) {
    ProgressTracker progress = run.ctx.progress();
    progress.stopIfCancelled("the kube-apiservers and members are stopped");
    run.undo.register("start the kube-apiservers again", () -> startStopped(run));
    for (String host : run.controlPlane) {
      progress.member(host);
      progress.run(
          host + ": stop kube-apiserver",
          () -> activities(run).apiServer.stopApiServer(ref(run, host)));
      run.apiServersStopped.add(host);
      progress.run(
          host + ": kube-apiserver gone",
          () -> activities(run).apiServerWait.awaitStopped(await(run, host)));
    }
    progress.member("");
  }

  static void switchToV3(MigrateRun run) {
    ProgressTracker progress = run.ctx.progress();
    for (String host : run.controlPlane) {
      progress.awaitResumed();
      progress.member(host);
      if (!run.pastNoReturn()) {
        run.undo.register(host + ": back to etcd2, stopped", () -> backToV2(run, host));
      }
      progress.run(
          host + ": --storage-backend=" + MigrateRun.V3_BACKEND,
          () ->
              activities(run)
                  .apiServer
                  .setStorageBackend(
                      new SetStorageBackendRequest(run.cluster(), host, MigrateRun.V3_BACKEND)));
      progress.run(
          host + ": start kube-apiserver",
          () -> activities(run).apiServer.startApiServer(ref(run, host)));
      progress.run(
          host + ": kube-apiserver healthy on v3",
          () -> activities(run).apiServerWait.awaitHealthy(await(run, host)));
      run.apiServersStopped.remove(host);
      run.apiServersSwitched.add(host);
      // its writes are in v3 only from now on: putting v2 back would lose them
      run.commit();
    }
    progress.member("");
  }

  /** The undo of a switch: the apiserver stopped again and its manifest back on etcd2. */
  private static boolean backToV2(MigrateRun run, String host) {
    ProgressTracker progress = run.ctx.progress();
    progress.run(
        host + ": stop kube-apiserver",
        () -> activities(run).apiServer.stopApiServer(ref(run, host)));
    progress.run(
        host + ": kube-apiserver gone",
        () -> activities(run).apiServerWait.awaitStopped(await(run, host)));
    if (!run.apiServersStopped.contains(host)) run.apiServersStopped.add(host);
    progress.run(
        host + ": --storage-backend=" + run.backends.get(host),
        () ->
            activities(run)
                .apiServer
                .setStorageBackend(
                    new SetStorageBackendRequest(run.cluster(), host, run.backends.get(host))));
    return true;
  }

  private static boolean startStopped(MigrateRun run) {
    ProgressTracker progress = run.ctx.progress();
    for (String host : new ArrayList<>(run.apiServersStopped)) {
      progress.member(host);
      progress.run(
          host + ": start kube-apiserver",
          () -> activities(run).apiServer.startApiServer(ref(run, host)));
      progress.run(
          host + ": kube-apiserver healthy",
          () -> activities(run).apiServerWait.awaitHealthy(await(run, host)));
      run.apiServersStopped.remove(host);
    }
    progress.member("");
    return true;
  }

  private static Activities activities(MigrateRun run) {
    return run.ctx.activities();
  }

  private static ControlPlaneRef ref(MigrateRun run, String host) {
    return new ControlPlaneRef(run.cluster(), host);
  }

  private static AwaitApiServerRequest await(MigrateRun run, String host) {
    return new AwaitApiServerRequest(
        run.cluster(), host, run.request.effectiveApiServerTimeoutSeconds());
  }
}
