package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.ssh.SshException;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a new member's host needs when its peers run etcd as a systemd unit: the unit itself (a copy
 * of a peer's unit file when the host has none), its data dir owned by the unit's user, and files
 * written where root keeps them. The packaged unit file of a host that has one is never changed.
 */
final class NewSystemdMember {

  private static final Logger log = LoggerFactory.getLogger(NewSystemdMember.class);
  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private final SshConnector ssh;

  NewSystemdMember(SshConnector ssh) {
    this.ssh = ssh;
  }

  /** The environment file the host's unit reads, as systemd resolves the unit. */
  Optional<String> envFileOf(ClusterSpec cluster, MemberHost host) {
    return SystemdUnit.read(ssh, host, cluster.service().effectiveUnit()).environmentFile();
  }

  /**
   * The new host's unit; when systemd does not know it there, a running peer's unit file is
   * installed in {@code /etc/systemd/system} first. Refuses a unit that reads no environment file.
   */
  SystemdUnit unitFromPeer(ClusterSpec cluster, MemberHost host) {
    String name = cluster.service().effectiveUnit();
    SystemdUnit unit = SystemdUnit.read(ssh, host, name);
    if (!unit.loaded()) {
      MemberHost peer = peerWithUnit(cluster, host);
      SystemdUnit theirs = SystemdUnit.read(ssh, peer, name);
      String text =
          root(cluster)
              .run(peer, "cat " + quote(theirs.fragmentPath()), "read " + theirs.fragmentPath())
              .stdout();
      String path = "/etc/systemd/system/" + unit.serviceName();
      root(cluster).write(host, path, text, "644");
      root(cluster).run(host, "systemctl daemon-reload", "reload systemd's units");
      log.info(
          "{}: unit {} copied from {}'s {}",
          host.describe(),
          path,
          peer.member().name(),
          theirs.fragmentPath());
      unit = SystemdUnit.read(ssh, host, name);
    }
    if (unit.environmentFile().isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure(
          ("%s: unit %s reads no EnvironmentFile=, where the new member's settings would go: add"
                  + " one, as its peers have")
              .formatted(host.describe(), name),
          "UnitNotUsable");
    }
    return unit;
  }

  private MemberHost peerWithUnit(ClusterSpec cluster, MemberHost newMember) {
    for (MemberSpec m : cluster.members()) {
      if (m.name().equals(newMember.member().name())) continue;
      MemberHost peer = MemberHost.of(cluster, m);
      try {
        if (SystemdUnit.read(ssh, peer, cluster.service().effectiveUnit()).loaded()) return peer;
      } catch (SshException | ApplicationFailure e) {
        log.info(
            "{}: its unit cannot be read ({}); trying the next member",
            peer.describe(),
            e.getMessage());
      }
    }
    throw ApplicationFailure.newNonRetryableFailure(
        ("%s has no systemd unit %s and no member of cluster '%s' has one to copy: install the"
                + " unit on the new host")
            .formatted(newMember.describe(), cluster.service().effectiveUnit(), cluster.name()),
        "UnitNotUsable");
  }

  /** The data dir (mode 0700) and the environment file's directory, owned as the unit runs. */
  void createDataDir(ClusterSpec cluster, MemberHost host, SystemdUnit unit) {
    String data = quote(host.member().dataDir());
    String env = unit.environmentFile().orElseThrow();
    String owner = unit.user().isBlank() ? "" : " && chown " + quote(unit.user()) + ": " + data;
    root(cluster)
        .run(
            host,
            "mkdir -p "
                + data
                + " "
                + quote(env.substring(0, Math.max(1, env.lastIndexOf('/'))))
                + " && chmod 700 "
                + data
                + owner,
            "create the data dir");
  }

  /** A file root may keep private (the environment file is written 0600), "" when it is absent. */
  String readIfExists(ClusterSpec cluster, MemberHost host, String path) {
    return root(cluster)
        .run(
            host,
            "if [ -f %s ]; then cat %s; fi".formatted(quote(path), quote(path)),
            "read " + path)
        .stdout();
  }

  /** Writes {@code content} to {@code path} (mode 0600) where root keeps it. */
  void write(ClusterSpec cluster, MemberHost host, String path, String content) {
    root(cluster).write(host, path, content, "600");
  }

  /** Commands on root's files of the cluster's hosts. */
  SystemdHost root(ClusterSpec cluster) {
    return SystemdHost.of(ssh, cluster.service());
  }
}
