package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.ServiceSpec;

/**
 * One member's data dir made from a snapshot by etcd's own tool, as a restore (from a backup) and a
 * recovery (from the survivor's database) both make it: the script's lines, run on the host with
 * the rights the data dir needs.
 */
public final class SnapshotRestore {

  private SnapshotRestore() {}

  /**
   * The restore's command lines: {@code etcdutl snapshot restore} (from 3.5 on) or {@code
   * ETCDCTL_API=3 etcdctl snapshot restore} of {@code snapshot} into {@code dataDir}, for the
   * member alone under its name and peer URL in {@code initialCluster}.
   *
   * @param fromDataDir the snapshot is a database copied from a data dir, which carries no hash
   *     ({@code --skip-hash-check})
   * @param bump how far to raise the revision, with it marked compacted (0: not raised; the tool
   *     must have {@code --bump-revision}, etcdutl from 3.5.10 on)
   */
  public static String command(
      String tool,
      String snapshot,
      boolean fromDataDir,
      MemberSpec member,
      String initialCluster,
      String clusterToken,
      String dataDir,
      long bump) {
    boolean etcdutl = tool.endsWith("etcdutl");
    return (etcdutl ? "" : "export ETCDCTL_API=3\n")
        + quote(tool)
        + " snapshot restore "
        + quote(snapshot)
        + (fromDataDir ? " --skip-hash-check" : "")
        + " --name "
        + quote(member.name())
        + " --initial-cluster "
        + quote(initialCluster)
        + " --initial-cluster-token "
        + quote(clusterToken)
        + " --initial-advertise-peer-urls "
        + quote(member.peerUrl())
        + " --data-dir "
        + quote(dataDir)
        + (bump > 0 ? " --bump-revision " + bump + " --mark-compacted" : "")
        + "\n";
  }

  /**
   * The chown that gives a restored data dir to the user a systemd unit runs etcd as ({@code
   * User=}); "" when it runs as root or is no unit.
   */
  public static String owner(SshConnector ssh, ClusterSpec spec, MemberHost host, String dataDir) {
    if (!ServiceSpec.SYSTEMD.equals(spec.service().kind())) return "";
    String user = SystemdUnit.read(ssh, host, spec.service().effectiveUnit()).user();
    if (user.isBlank() || user.equals("root")) return "";
    return "chown -R " + quote(user) + ": " + quote(dataDir) + "\n";
  }
}
