package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.activities.ApiServerActivities.AwaitApiServerRequest;
import io.etcdrunbooks.workflows.activities.ApiServerActivities.ControlPlaneRef;
import io.etcdrunbooks.workflows.activities.ApiServerActivities.ReplaceEtcdServerRequest;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.temporal.failure.ActivityFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The phase that points every kube-apiserver at a new set of etcd servers: one control-plane host
 * at a time, its static-pod manifest edited, then its health endpoint must answer before the next
 * host is touched. The way back of a host (its previous manifest) is registered in a {@link
 * Compensation} before its edit; a host that does not come back healthy gets it back (COMPENSATE)
 * and the rollout stops. Hosts already healthy on the new set keep it: they work, and the etcd side
 * they follow is already changed. Shared by the runbooks that change the members the apiservers
 * use.
 */
public final class ApiServerRollout {

  /**
   * The edit of one host's manifest.
   *
   * @param what what changes, for the host's step ("--etcd-servers https://a:2379 ->
   *     https://b:2379")
   * @param onHost makes the edit on a host; answers whether the manifest changed (false: it already
   *     said so)
   */
  public record Edit(String what, Predicate<String> onHost) {}

  /**
   * Where and why the rollout stopped, for the runbook's failure.
   *
   * @param changed the host's manifest had been edited
   * @param putBack what became of its previous manifest, as a sentence ("" when it was never
   *     edited)
   * @param done hosts healthy on the new set; {@code notYet} hosts not touched
   */
  public record Stopped(
      String host,
      boolean changed,
      String cause,
      String putBack,
      List<String> done,
      List<String> notYet) {}

  private final RunContext ctx;
  private final int healthTimeoutSeconds;

  public ApiServerRollout(RunContext ctx, int healthTimeoutSeconds) {
    this.ctx = ctx;
    this.healthTimeoutSeconds = healthTimeoutSeconds;
  }

  /**
   * The failed member's client URL replaced by the new member's in {@code --etcd-servers}, the
   * others kept in order.
   */
  public static Edit replacingEtcdServer(RunContext ctx, String oldUrl, String newUrl) {
    return new Edit(
        "--etcd-servers " + oldUrl + " -> " + newUrl,
        host ->
            ctx.activities()
                .apiServer
                .replaceEtcdServer(
                    new ReplaceEtcdServerRequest(ctx.cluster(), host, oldUrl, newUrl)));
  }

  /**
   * Rolls the edit out to every control-plane host, in inventory order; {@code pause} holds it
   * before each host. A host that does not come back healthy stops the rollout: {@link PhaseFailed}
   * with {@link Unhealthy}, and the runner puts its previous manifest back.
   *
   * @return the hosts whose manifest changed, in order
   */
  public List<String> run(Edit edit) {
    return run(ctx.activities().apiServer.controlPlaneHosts(ctx.ref()), edit);
  }

  /** As {@link #run(Edit)}, on these hosts only (the others' machines are gone). */
  public List<String> run(List<String> hosts, Edit edit) {
    List<String> changed = new ArrayList<>();
    List<String> done = new ArrayList<>();
    for (String host : hosts) {
      progress().awaitResumed();
      progress().member(host);
      HostEdit onHost = new HostEdit(host);
      onHost.rollOut(edit, done, hosts.subList(hosts.indexOf(host) + 1, hosts.size()));
      done.add(host);
      if (onHost.changed) changed.add(host);
    }
    progress().member("");
    return changed;
  }

  private ProgressTracker progress() {
    return ctx.progress();
  }

  /**
   * The host that did not come back healthy ({@link PhaseFailed#what()}); once the undos ran,
   * {@link #stopped()} says where the rollout stopped and what became of the host's manifest.
   */
  public static final class Unhealthy {
    private final HostEdit onHost;
    private final Edit edit;
    private final List<String> done;
    private final List<String> notYet;

    private Unhealthy(HostEdit onHost, Edit edit, List<String> done, List<String> notYet) {
      this.onHost = onHost;
      this.edit = edit;
      this.done = List.copyOf(done);
      this.notYet = List.copyOf(notYet);
    }

    public String host() {
      return onHost.host;
    }

    /** The edit that was rolled out. */
    public Edit edit() {
      return edit;
    }

    public Stopped stopped() {
      return new Stopped(onHost.host, onHost.changed, onHost.cause, onHost.putBack, done, notYet);
    }
  }

  /**
   * One host: its edit made, the way back registered when it changed the manifest (only a manifest
   * this edit changed is put back: an older previous manifest may lie beside an unchanged one), its
   * health awaited.
   */
  private final class HostEdit {
    final String host;
    boolean changed;
    String cause = "";
    String putBack = "";

    HostEdit(String host) {
      this.host = host;
    }

    void rollOut(Edit edit, List<String> done, List<String> notYet) {
      Compensation.Scope undo = ctx.undos().scope();
      changed = progress().record(host + ": " + edit.what(), () -> edit.onHost().test(host));
      if (changed) undo.register(host + ": previous manifest", this::putBack);
      try {
        progress()
            .run(
                host + ": kube-apiserver healthy",
                () ->
                    ctx.activities()
                        .apiServerWait
                        .awaitHealthy(
                            new AwaitApiServerRequest(ctx.cluster(), host, healthTimeoutSeconds)));
      } catch (ActivityFailure e) {
        cause = Failures.rootMessage(e);
        throw ctx.undos().failed(e, new Unhealthy(this, edit, done, notYet));
      }
      undo.commit();
    }

    /** Never throws: a runbook with more to undo goes on with it. */
    private boolean putBack() {
      try {
        progress()
            .run(
                host + ": put the previous manifest back",
                () ->
                    ctx.activities()
                        .apiServer
                        .restoreManifest(new ControlPlaneRef(ctx.cluster(), host)));
        putBack = "Its previous manifest was put back.";
        return true;
      } catch (ActivityFailure e) {
        putBack =
            ("Putting its previous manifest back failed too (%s): restore it by hand from the"
                    + " hidden .etcd-runbooks.previous file beside it.")
                .formatted(Failures.rootMessage(e));
        return false;
      }
    }
  }
}
