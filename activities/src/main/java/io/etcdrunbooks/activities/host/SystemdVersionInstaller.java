package io.etcdrunbooks.activities.host;

import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Path;
import java.util.List;

/**
 * Versions for a systemd member: uploaded under installDir like a plain member's, the {@code
 * current} link selecting one. The unit is read, not assumed: when its ExecStart runs a binary
 * elsewhere ({@code /usr/local/bin/etcd}, a package's {@code /usr/bin/etcd}), the runbooks' own
 * drop-in points ExecStart at {@code <installDir>/current/etcd} with the same arguments, once; the
 * unit file itself is never changed.
 */
final class SystemdVersionInstaller implements VersionInstaller {

  private final SshConnector ssh;
  private final ServiceSpec spec;
  private final BinaryInstaller binaries;

  SystemdVersionInstaller(SshConnector ssh, ServiceSpec spec, BinaryInstaller binaries) {
    this.ssh = ssh;
    this.spec = spec;
    this.binaries = binaries;
  }

  /** The version of the binary the unit runs, "" when there is none. */
  @Override
  public String installedVersion(MemberHost host) {
    SystemdUnit unit = SystemdUnit.read(ssh, host, spec.effectiveUnit());
    if (unit.binary().isEmpty() || unit.binary().equals(current(host))) {
      return binaries.installedVersion(host);
    }
    return binaries.versionOf(host, unit.binary());
  }

  @Override
  public String stage(MemberHost host, String version, Path binDir) {
    return binaries.stage(host, version, binDir);
  }

  @Override
  public String installAndSelect(
      MemberHost host, String version, Path binDir, Runnable beforeSwitch) {
    String done = binaries.installAndSelect(host, version, binDir, beforeSwitch);
    SystemdUnit unit = SystemdUnit.read(ssh, host, spec.effectiveUnit());
    if (unit.binary().equals(current(host))) return done;
    String dropIn = dropIn(host, unit);
    SystemdHost files = SystemdHost.of(ssh, spec);
    files.write(host, unit.ownDropIn(), dropIn, "644");
    files.run(host, "systemctl daemon-reload", "reload systemd's units");
    return done
        + "; ExecStart moved from "
        + unit.binary()
        + " to "
        + current(host)
        + " by "
        + unit.ownDropIn();
  }

  /** The drop-in that runs the selected version with the unit's own arguments. */
  static String dropIn(MemberHost host, SystemdUnit unit) {
    List<String> unsafe =
        unit.arguments().stream().filter(a -> !a.matches("[A-Za-z0-9_=,:./@+-]*")).toList();
    if (!unsafe.isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure(
          ("%s: unit %s runs %s with %s, which systemd shows unquoted: the runbook cannot carry"
                  + " them into a drop-in as they are. Move them to the unit's environment file"
                  + " (ETCD_* settings), or point ExecStart at %s yourself")
              .formatted(host.describe(), unit.unit(), unit.binary(), unsafe, current(host)),
          "UnitNotUsable");
    }
    String arguments = unit.arguments().isEmpty() ? "" : " " + String.join(" ", unit.arguments());
    return "# written by etcd-runbooks: the version it selects under "
        + host.member().installDir()
        + "\n[Service]\nExecStart=\nExecStart="
        + current(host)
        + arguments
        + "\n";
  }

  private static String current(MemberHost host) {
    return host.member().installDir() + "/current/etcd";
  }
}
