package io.etcdrunbooks.activities.host;

import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ServiceSpec;

/**
 * Runs a member's etcd on its host. Every method looks at the host first; start and stop are no-ops
 * when done.
 */
public interface ServiceManager {

  boolean isRunning(MemberHost host);

  /**
   * Whether stop has nothing left to do. Usually not running; a static pod whose manifest is still
   * in place is not stopped even while its container is down, since kubelet would start it again.
   */
  default boolean isStopped(MemberHost host) {
    return !isRunning(host);
  }

  /**
   * Starts etcd unless it runs; fails with {@link MemberStartFailedException} when it does not stay
   * up.
   */
  void start(MemberHost host);

  /**
   * Starts etcd unless it runs and returns once its process exists, without waiting to see it stay
   * up: the caller watches it ({@link #watch}) while it waits for the member's health, so that a
   * restart's down time is stop, switch, start and ready, nothing more.
   */
  default void launch(MemberHost host) {
    start(host);
  }

  /**
   * Watches the running etcd for {@code window}: fails with {@link MemberStartFailedException},
   * carrying the end of its log, as soon as it is gone or replaced by another process (it exited,
   * or its supervisor restarted it); returns when it ran throughout. Heartbeats, so a cancelled
   * watch ends at its next poll.
   */
  default void watch(MemberHost host, java.time.Duration window) {
    java.util.OptionalLong first = mainPid(host);
    long deadline = System.nanoTime() + window.toNanos();
    while (true) {
      java.util.OptionalLong now = first.isEmpty() ? first : mainPid(host);
      if (now.isEmpty() || now.getAsLong() != first.getAsLong()) {
        throw new MemberStartFailedException(
            "etcd of "
                + host.describe()
                + (now.isEmpty()
                    ? " exited"
                    : " was restarted (pid " + first.getAsLong() + " -> " + now.getAsLong() + ")")
                + " right after it was started; its last log lines:\n"
                + logTail(host, 20));
      }
      if (System.nanoTime() > deadline) return;
      io.etcdrunbooks.activities.support.Heartbeats.beat(
          "watching etcd of " + host.member().name() + " (pid " + first.getAsLong() + ")");
      io.etcdrunbooks.activities.support.Heartbeats.pause(WATCH_POLL_MILLIS);
    }
  }

  /** How often {@link #watch} looks at the process. */
  long WATCH_POLL_MILLIS = 100;

  /** Stops etcd gracefully (SIGTERM, so a leader hands over), bounded; no-op when it is stopped. */
  void stop(MemberHost host);

  /**
   * The shell lines, for {@link HostRestart}'s command on the host, that stop etcd as {@link #stop}
   * does and return once it is gone; they exit non-zero, saying why on stderr, when it is not.
   */
  String stopScript(MemberHost host);

  /**
   * The shell lines, for {@link HostRestart}'s command on the host, that start etcd as {@link
   * #launch} does: once its process exists they are done, and they exit non-zero, saying why on
   * stderr, when it does not come.
   */
  String launchScript(MemberHost host);

  /** The pid of the member's running etcd on its host, empty when none runs. */
  java.util.OptionalLong mainPid(MemberHost host);

  /** The last lines of the member's etcd log, "" when there is none. */
  String logTail(MemberHost host, int lines);

  static ServiceManager of(ServiceSpec spec, SshConnector ssh) {
    String kind = spec == null ? null : spec.kind();
    if (ServiceSpec.PLAIN.equals(kind)) return new PlainProcessServiceManager(ssh);
    if (ServiceSpec.SYSTEMD.equals(kind))
      return new SystemdServiceManager(ssh, spec.unit(), spec.sudo());
    if (ServiceSpec.STATIC_POD.equals(kind)) return new StaticPodServiceManager(ssh, spec);
    throw new IllegalArgumentException(
        "unknown service kind '" + kind + "'; use 'plain', 'systemd' or 'static-pod'");
  }
}
