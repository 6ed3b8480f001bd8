package io.etcdrunbooks.activities.host;

import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ServiceSpec;
import java.nio.file.Path;

/** Puts an etcd version in place for a member's service, the way its service kind needs it. */
public interface VersionInstaller {

  /** The version the member's service is set to run, "" when none is. */
  String installedVersion(MemberHost host);

  /** Whether the member's service is set to run the version (cheaper than reading which one). */
  default boolean selects(MemberHost host, String version) {
    return version.equals(installedVersion(host));
  }

  /**
   * Makes the service run the version at its next start; does nothing that is already done.
   *
   * @param binDir the version's binaries on the worker, from the release store
   * @return what was done, for the log
   */
  default String installAndSelect(MemberHost host, String version, Path binDir) {
    return installAndSelect(host, version, binDir, () -> {});
  }

  /**
   * As {@link #installAndSelect(MemberHost, String, Path)}; {@code beforeSwitch} runs just before
   * the service is pointed at the version (after any upload), and may throw to stop there.
   */
  String installAndSelect(MemberHost host, String version, Path binDir, Runnable beforeSwitch);

  /**
   * Puts the version where {@link #installAndSelect} will find it, without pointing the service at
   * it, so that the upload happens before the member stops; does nothing that is already done.
   *
   * @return what was done, for the log
   */
  default String stage(MemberHost host, String version, Path binDir) {
    return "nothing to stage: the service's next start fetches etcd " + version;
  }

  /**
   * A static pod's version is its manifest's image; plain and systemd members run uploaded
   * binaries, a systemd unit's ExecStart pointed at them where it runs another path.
   */
  static VersionInstaller of(ServiceSpec spec, SshConnector ssh, BinaryInstaller binaries) {
    if (spec != null && ServiceSpec.STATIC_POD.equals(spec.kind()))
      return new ManifestImageInstaller(ssh, spec);
    if (spec != null && ServiceSpec.SYSTEMD.equals(spec.kind()))
      return new SystemdVersionInstaller(ssh, spec, binaries);
    return binaries;
  }
}
