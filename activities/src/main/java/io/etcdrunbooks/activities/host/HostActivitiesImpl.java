package io.etcdrunbooks.activities.host;

import io.etcdrunbooks.activities.etcd.MemberReadiness;
import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.support.DaemonThreads;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.activities.support.RunLiveness;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.workflows.activities.EtcdActivities.AwaitMemberRequest;
import io.etcdrunbooks.workflows.activities.HostActivities;
import io.etcdrunbooks.workflows.model.ClientConnections;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberFlags;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link HostActivities} over SSH. Each method reads the host's state first and does only what is
 * missing.
 *
 * <p>Failures a retry cannot fix (unknown cluster, member or version; a refused host key; etcd
 * exiting right after its start) are non-retryable ApplicationFailures; unreachable hosts and
 * failed commands are retryable.
 */
public final class HostActivitiesImpl implements HostActivities {

  private static final Logger log = LoggerFactory.getLogger(HostActivitiesImpl.class);

  private final ClusterTargets targets;
  private final SshConnector ssh;
  private final ProcessFlagsReader flags;
  private final ReleaseStore releases;
  private final BinaryInstaller binaries;
  private final HostAccessCheck access;
  private final ClientConnectionsReader connections;
  private volatile RunLiveness liveness = RunLiveness.ALWAYS_OPEN;

  /** Where a restart reads the member's readiness and watches its process meanwhile. */
  private final ExecutorService helpers = DaemonThreads.cachedPool("member-restart-helper");

  public HostActivitiesImpl(ClusterTargets targets, ReleaseStore releases) {
    this.targets = targets;
    this.ssh = targets.ssh();
    this.releases = releases;
    this.binaries = targets.binaries();
    this.access = new HostAccessCheck(ssh);
    this.flags = new ProcessFlagsReader(ssh);
    this.connections = new ClientConnectionsReader(ssh, flags);
  }

  /** Asks Temporal before a version is selected whether the run that asked for it is still open. */
  public HostActivitiesImpl withRunLiveness(RunLiveness liveness) {
    this.liveness = liveness;
    return this;
  }

  @Override
  public String installedVersion(MemberRef member) {
    return onHost(
        member.cluster(),
        member.member(),
        "read the installed version",
        (host, service, versions) -> versions.installedVersion(host));
  }

  @Override
  public void stopMember(MemberRef member) {
    onHost(
        member.cluster(),
        member.member(),
        "stop etcd",
        (host, service, versions) -> {
          if (service.isStopped(host)) {
            log.info("{}: etcd is already stopped", host.describe());
            return null;
          }
          service.stop(host);
          log.info("{}: etcd stopped", host.describe());
          return null;
        });
  }

  @Override
  public void installVersion(InstallRequest request) {
    onHost(
        request.cluster(),
        request.member(),
        "install etcd " + request.version(),
        (host, service, versions) -> {
          // resolved first so that a version the release store does not know is refused before the
          // host is touched
          Path binDir = binDir(request.version());
          select(host, versions, request, binDir, () -> liveness.requireOpen(selecting(request)));
          return null;
        });
  }

  private static String selecting(InstallRequest request) {
    return "select etcd " + request.version() + " on " + request.member();
  }

  private static void select(
      MemberHost host,
      VersionInstaller versions,
      InstallRequest request,
      Path binDir,
      Runnable beforeSwitch) {
    log.info(
        "{}: etcd {}: {}",
        host.describe(),
        request.version(),
        versions.installAndSelect(host, request.version(), binDir, beforeSwitch));
  }

  @Override
  public void startMember(MemberRef member) {
    onHost(
        member.cluster(),
        member.member(),
        "start etcd",
        (host, service, versions) -> {
          if (service.isRunning(host)) {
            log.info("{}: etcd already runs", host.describe());
            return null;
          }
          service.start(host);
          log.info("{}: etcd started", host.describe());
          return null;
        });
  }

  @Override
  public String stageVersion(InstallRequest request) {
    return onHost(
        request.cluster(),
        request.member(),
        "stage etcd " + request.version(),
        (host, service, versions) -> {
          String done = versions.stage(host, request.version(), binDir(request.version()));
          log.info("{}: etcd {} staged: {}", host.describe(), request.version(), done);
          return done;
        });
  }

  @Override
  public SwitchOutcome switchVersion(InstallRequest request) {
    long started = System.nanoTime();
    MemberRef ref = new MemberRef(request.cluster(), request.member());
    List<String> steps = new java.util.ArrayList<>();
    boolean done = runsSelected(request);
    long beforeStop = (System.nanoTime() - started) / 1_000_000;
    if (done)
      return new SwitchOutcome(
          List.of(), List.of("already running " + request.version()), beforeStop);
    timed(steps, "stop", () -> stopMember(ref));
    List<String> changes = timed(steps, "flags", () -> translateFlagsFor(request));
    timed(steps, "select " + request.version(), () -> installVersion(request));
    timed(steps, "start", () -> launchMember(ref));
    log.info(
        "{} of cluster '{}' switched to {}: {}",
        request.member(),
        request.cluster(),
        request.version(),
        steps);
    return new SwitchOutcome(changes, steps, beforeStop);
  }

  /**
   * Whether the member runs the version its service is set to. A retry after the start (the worker
   * lost mid-call) finds it so: the version is selected only while the member is stopped, so it
   * runs that version. The link is read first: on the way to a new version it points elsewhere, and
   * one command answers.
   */
  private boolean runsSelected(InstallRequest request) {
    return onHost(
        request.cluster(),
        request.member(),
        "read the state of etcd",
        (host, service, versions) ->
            versions.selects(host, request.version()) && service.isRunning(host));
  }

  private List<String> translateFlagsFor(InstallRequest request) {
    return translateFlags(
        new TranslateFlagsRequest(request.cluster(), request.member(), request.version(), true));
  }

  @Override
  public boolean awaitRestartSettled(MemberRef ref) {
    ServiceSpec spec = targets.cluster(ref.cluster()).service();
    return onHost(
        ref.cluster(),
        ref.member(),
        "wait for a restart command running on the host",
        (host, service, versions) -> new HostRestart(ssh, spec).settle(host));
  }

  @Override
  public RestartOutcome restartMember(RestartRequest request) {
    InstallRequest install =
        new InstallRequest(request.cluster(), request.member(), request.version());
    Path binDir = binDir(request.version()); // an unknown version is refused before any stop
    String token = RestartToken.ofThisStep();
    MemberReadiness ready =
        targets.readiness(
            new AwaitMemberRequest(
                request.cluster(), request.member(), request.version(), request.timeoutSeconds()));
    // the other members are connected to while this one stops, not once it is back
    Future<?> warmed = helpers.submit(ready::warm);
    try {
      // asked while the restart is prepared, answered before the member stops
      Runnable stillOpen = liveness.requireOpenLater(selecting(install));
      ServiceSpec spec = targets.cluster(request.cluster()).service();
      Optional<HostRestart.Done> done =
          onHost(
              request.cluster(),
              request.member(),
              "restart etcd on " + request.version(),
              (host, service, versions) ->
                  new HostRestart(ssh, spec)
                      .restart(
                          host,
                          service,
                          binaries,
                          request.version(),
                          binDir,
                          token,
                          () ->
                              versions.selects(host, request.version()) && service.isRunning(host),
                          stillOpen,
                          this::binDir));
      long downFrom = done.map(HostRestart.Done::downSinceNanos).orElse(System.nanoTime());
      List<String> steps =
          new ArrayList<>(
              done.map(HostRestart.Done::steps)
                  .orElse(List.of("already running " + request.version())));
      timed(steps, "ready", () -> readyWhileWatched(request, ready, warmed));
      long down = (System.nanoTime() - downFrom) / 1_000_000;
      log.info(
          "{} of cluster '{}' restarted on {}: {}, down {} ms",
          request.member(),
          request.cluster(),
          request.version(),
          steps,
          down);
      return new RestartOutcome(
          done.map(HostRestart.Done::flagChanges).orElse(List.of()),
          steps,
          down,
          done.isPresent(),
          clusterAfter(request, ready));
    } finally {
      warmed.cancel(true);
      ready.close();
    }
  }

  /**
   * The cluster once the member is ready, over the wait's connections: the next member's checks
   * start from it. A read that fails only leaves the workflow to read the cluster itself.
   */
  private static ClusterState clusterAfter(RestartRequest request, MemberReadiness ready) {
    try {
      return ready.clusterState();
    } catch (RuntimeException e) {
      log.warn(
          "{}: the cluster could not be read after its restart, the runbook reads it again: {}",
          request.member(),
          e.getMessage());
      return null;
    }
  }

  /**
   * Waits on the activity's thread (heartbeating) for the member's readiness, read on one helper
   * thread while another watches its process: an etcd that exits fails the restart at once with its
   * log. A watch that fails otherwise (the host did not answer) only stops watching.
   */
  private void readyWhileWatched(
      RestartRequest request, MemberReadiness readiness, Future<?> warmed) {
    Future<?> watch =
        helpers.submit(
            () ->
                watchMember(
                    new WatchRequest(
                        request.cluster(), request.member(), request.timeoutSeconds())));
    Future<?> ready =
        helpers.submit(
            () -> {
              awaitQuietly(warmed);
              return readiness.await();
            });
    boolean watching = true;
    try {
      while (true) {
        Heartbeats.beat("member '" + request.member() + "': waiting until it is ready");
        try {
          ready.get(100, TimeUnit.MILLISECONDS);
          return;
        } catch (TimeoutException notYet) {
          // look at the watch, then wait again
        } catch (ExecutionException e) {
          throw rethrown(e);
        }
        if (watching && watch.isDone()) {
          watching = false;
          try {
            watch.get();
          } catch (ExecutionException e) {
            if (e.getCause() instanceof ApplicationFailure failure
                && "MemberStartFailed".equals(failure.getType())) throw failure;
            log.warn(
                "{}: stopped watching etcd, the readiness wait decides: {}",
                request.member(),
                e.getCause().getMessage());
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for " + request.member(), e);
    } finally {
      ready.cancel(true);
      watch.cancel(true);
    }
  }

  /** Warming that failed or ran long only leaves the wait to connect for itself. */
  private static void awaitQuietly(Future<?> warming) {
    try {
      warming.get(5, TimeUnit.SECONDS);
    } catch (ExecutionException | TimeoutException | CancellationException e) {
      // not warmed: the wait connects for itself
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static RuntimeException rethrown(ExecutionException e) {
    return e.getCause() instanceof RuntimeException runtime
        ? runtime
        : new IllegalStateException(e.getCause());
  }

  private static void timed(List<String> steps, String step, Runnable action) {
    timed(
        steps,
        step,
        () -> {
          action.run();
          return null;
        });
  }

  private static <T> T timed(List<String> steps, String step, Supplier<T> action) {
    long start = System.nanoTime();
    Heartbeats.beat(step);
    T result = action.get();
    steps.add(step + " " + (System.nanoTime() - start) / 1_000_000 + " ms");
    return result;
  }

  @Override
  public void launchMember(MemberRef member) {
    onHost(
        member.cluster(),
        member.member(),
        "start etcd",
        (host, service, versions) -> {
          service.launch(host);
          log.info("{}: etcd launched", host.describe());
          return null;
        });
  }

  @Override
  public void watchMember(WatchRequest request) {
    onHost(
        request.cluster(),
        request.member(),
        "watch etcd after its start",
        (host, service, versions) -> {
          service.watch(host, java.time.Duration.ofSeconds(request.seconds()));
          return null;
        });
  }

  @Override
  public MemberFlags memberFlags(MemberRef member) {
    return onHost(
        member.cluster(),
        member.member(),
        "read how etcd was started",
        (host, service, versions) -> flags.read(host, service));
  }

  @Override
  public ClientConnections clientConnections(MemberRef member) {
    ClusterSpec spec = targets.cluster(member.cluster());
    return onHost(
        member.cluster(),
        member.member(),
        "list the client connections of",
        (host, service, versions) -> {
          ClientConnections seen = connections.read(spec, host, service);
          log.info(
              "{}: client connections {}{}",
              host.describe(),
              seen.clients(),
              seen.unreadable() == null ? "" : " (unreadable: " + seen.unreadable() + ")");
          return seen;
        });
  }

  @Override
  public List<String> translateFlags(TranslateFlagsRequest request) {
    ServiceSpec spec = targets.cluster(request.cluster()).service();
    return onHost(
        request.cluster(),
        request.member(),
        "translate the flags of",
        (host, service, versions) -> {
          List<String> changes =
              new MemberFlagFiles(ssh, spec, flags)
                  .translate(host, service, request.version(), request.apply());
          if (request.apply() && !changes.isEmpty()) {
            log.info("{}: flags for etcd {}: {}", host.describe(), request.version(), changes);
          }
          return changes;
        });
  }

  @Override
  public List<String> setMemberFlags(SetMemberFlagsRequest request) {
    ServiceSpec spec = targets.cluster(request.cluster()).service();
    return onHost(
        request.cluster(),
        request.member(),
        "set the flags of",
        (host, service, versions) -> {
          List<String> changes =
              new MemberFlagFiles(ssh, spec, flags)
                  .set(host, request.flags(), request.changeId(), request.apply());
          if (request.apply() && !changes.isEmpty()) {
            log.info("{}: flags {}", host.describe(), changes);
          }
          return changes;
        });
  }

  @Override
  public String snapshotPast(SnapshotPastRequest request) {
    ServiceSpec spec = targets.cluster(request.cluster()).service();
    return onHost(
        request.cluster(),
        request.member(),
        "make a raft snapshot past index " + request.index() + " on",
        (host, service, versions) -> {
          String done =
              new WalSnapshots(ssh, spec)
                  .coverIndex(
                      host,
                      service,
                      new MemberFlagFiles(ssh, spec, flags),
                      request.index(),
                      java.time.Duration.ofSeconds(request.timeoutSeconds()));
          log.info("{}: {}", host.describe(), done);
          return done;
        });
  }

  @Override
  public boolean restoreMemberFlags(RestoreMemberFlagsRequest request) {
    ServiceSpec spec = targets.cluster(request.cluster()).service();
    return onHost(
        request.cluster(),
        request.member(),
        "put the flags back of",
        (host, service, versions) -> {
          boolean back = new MemberFlagFiles(ssh, spec, flags).restore(host, request.changeId());
          log.info(
              "{}: flags before {}: {}",
              host.describe(),
              request.changeId(),
              back ? "put back" : "none kept");
          return back;
        });
  }

  @Override
  public String logTail(LogTailRequest request) {
    return onHost(
        request.cluster(),
        request.member(),
        "read the etcd log",
        (host, service, versions) ->
            service.logTail(host, request.lines() <= 0 ? 100 : request.lines()));
  }

  @Override
  public List<String> checkAccess(HostAccessRequest request) {
    ClusterSpec cluster = targets.cluster(request.cluster());
    List<String> problems =
        access.problems(
            cluster,
            request.exceptMembers() == null ? List.of() : request.exceptMembers(),
            request.controlPlaneEdits());
    if (problems.isEmpty())
      log.info(
          "cluster '{}': every host it takes is reachable, its key known and its commands usable",
          cluster.name());
    else problems.forEach(p -> log.warn("cluster '{}': {}", cluster.name(), p));
    return problems;
  }

  private Path binDir(String version) {
    return HostFailures.binDir(releases, version);
  }

  private interface HostAction<T> {
    T apply(MemberHost host, ServiceManager service, VersionInstaller versions);
  }

  private <T> T onHost(String clusterName, String memberName, String what, HostAction<T> action) {
    ClusterSpec cluster = targets.cluster(clusterName);
    MemberSpec member =
        cluster.members().stream()
            .filter(m -> m.name().equals(memberName))
            .findFirst()
            .orElseThrow(
                () ->
                    ApplicationFailure.newNonRetryableFailure(
                        "cluster '"
                            + clusterName
                            + "' has no member '"
                            + memberName
                            + "' (members: "
                            + cluster.members().stream().map(MemberSpec::name).toList()
                            + "); check the runbook input or the inventory",
                        "UnknownMember"));
    MemberHost host = MemberHost.of(cluster, member);
    ServiceManager service = targets.service(cluster);
    VersionInstaller versions = targets.installer(cluster);
    return HostFailures.translate(host, what, () -> action.apply(host, service, versions));
  }
}
