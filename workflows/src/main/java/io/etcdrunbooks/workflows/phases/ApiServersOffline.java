package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.activities.ApiServerActivities.AwaitApiServerRequest;
import io.etcdrunbooks.workflows.activities.ApiServerActivities.ControlPlaneRef;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import java.util.List;
import java.util.function.Consumer;

/**
 * The kube-apiservers around a runbook that takes etcd away from them (a restore, a recovery of
 * quorum), as the Kubernetes documentation asks: every one stopped before etcd is touched, one host
 * at a time, and brought back one host at a time once etcd passed its checks, each healthy before
 * the next.
 */
public final class ApiServersOffline {

  private ApiServersOffline() {}

  /**
   * Stops each apiserver and waits until it no longer answers; each host is added to {@code
   * stopped} as its manifest is moved aside.
   */
  public static void stop(
      RunContext ctx, List<String> hosts, int timeoutSeconds, List<String> stopped) {
    ProgressTracker progress = ctx.progress();
    Activities activities = ctx.activities();
    for (String host : hosts) {
      progress.member(host);
      progress.run(
          host + ": stop kube-apiserver",
          () -> activities.apiServer.stopApiServer(new ControlPlaneRef(ctx.cluster(), host)));
      stopped.add(host);
      progress.run(
          host + ": kube-apiserver gone",
          () ->
              activities.apiServerWait.awaitStopped(
                  new AwaitApiServerRequest(ctx.cluster(), host, timeoutSeconds)));
    }
  }

  /**
   * Brings each apiserver back, healthy before the next; {@code beforeStart} runs first on each
   * host (an edit of its stopped manifest, say). Each host moves from {@code stopped} to {@code
   * restarted} once healthy.
   */
  public static void bringBack(
      RunContext ctx,
      List<String> hosts,
      int timeoutSeconds,
      Consumer<String> beforeStart,
      List<String> stopped,
      List<String> restarted) {
    ProgressTracker progress = ctx.progress();
    Activities activities = ctx.activities();
    for (String host : hosts) {
      progress.member(host);
      beforeStart.accept(host);
      progress.run(
          host + ": start kube-apiserver",
          () -> activities.apiServer.startApiServer(new ControlPlaneRef(ctx.cluster(), host)));
      progress.run(
          host + ": kube-apiserver healthy",
          () ->
              activities.apiServerWait.awaitHealthy(
                  new AwaitApiServerRequest(ctx.cluster(), host, timeoutSeconds)));
      stopped.remove(host);
      restarted.add(host);
    }
    progress.member("");
  }
}
