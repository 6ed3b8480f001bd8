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

  /** Stops etcd gracefully (SIGTERM, so a leader hands over), bounded; no-op when it is stopped. */
  void stop(MemberHost host);

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
