package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.ssh.ExecResult;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.workflows.common.FailureType;
import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A member's raft snapshots on disk ({@code <data-dir>/member/snap/<term>-<index>.snap}, both in
 * hex, as etcd's snapshotter names them) and how to make one that covers a raft index.
 *
 * <p>Why: etcd 3.7 no longer reads the v2-encoded requests etcd 3.5 still writes to the WAL (member
 * attributes, the cluster version: {@code PUT /0/...}); 3.6 converted them
 * (server/etcdserver/apply_v2.go v2ToV3Request), 3.7's apply.Apply panics "Apply, could not find a
 * header" on them. A 3.7 member replays its WAL from its newest snapshot on, so every entry a 3.5
 * member wrote must lie behind that snapshot. A 3.6 member snapshots only every --snapshot-count
 * entries (10,000 by default) and does not force one when the cluster version goes up (it does
 * after a downgrade only), so a cluster that left 3.5 fewer than that many entries ago still holds
 * them; seen here on 3.5.30 -> 3.5.35 -> 3.6.16 -> 3.7.3. The workaround is the one etcd's 3.6
 * upgrade guide gives for v2 store content: restart the member with --snapshot-count=1 until it has
 * snapshotted, then with its own setting again.
 */
final class WalSnapshots {

  private static final Pattern SNAP = Pattern.compile("^[0-9a-f]{16}-([0-9a-f]{16})\\.snap$");
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);

  private final SshConnector ssh;
  private final ServiceSpec spec;

  WalSnapshots(SshConnector ssh, ServiceSpec spec) {
    this.ssh = ssh;
    this.spec = spec;
  }

  /** The raft index of the member's newest snapshot on disk; empty when it has none. */
  OptionalLong newest(MemberHost host) {
    String snapDir = host.member().dataDir() + "/member/snap";
    ExecResult listed =
        host.requireOk(
            ssh.exec(
                host.target(),
                privileged(host, "ls -1 " + quote(snapDir) + " 2>/dev/null; true"),
                COMMAND_TIMEOUT),
            "list the raft snapshots in " + snapDir);
    OptionalLong newest = OptionalLong.empty();
    for (String name : listed.stdout().split("\n")) {
      Matcher m = SNAP.matcher(name.strip());
      if (!m.matches()) continue;
      long index = Long.parseUnsignedLong(m.group(1), 16);
      if (newest.isEmpty() || index > newest.getAsLong()) newest = OptionalLong.of(index);
    }
    return newest;
  }

  /**
   * A plain member's data dir is the SSH user's; a systemd unit's and a static pod's are root's
   * (etcd keeps it 0700), as for the restart command (HostRestart).
   */
  private String privileged(MemberHost host, String command) {
    String kind = spec == null ? ServiceSpec.PLAIN : spec.kind();
    return ServiceSpec.PLAIN.equals(kind)
        ? command
        : RootShell.asRoot(spec, host.target().user(), command);
  }

  /**
   * kubelet restarts a static pod whenever its manifest changes, on its own schedule: an edit made
   * while it runs would restart it again while this restart, or the version switch that follows, is
   * under way (seen: the member "exited right after it was started"). So a static pod's manifest is
   * edited only while the member is stopped (its manifest moved out, where kubelet does not look);
   * a systemd unit's or a plain process's flags file is edited while it runs, read at its restart.
   */
  private boolean staticPod() {
    return spec != null && ServiceSpec.STATIC_POD.equals(spec.kind());
  }

  /**
   * Puts the member's flags file back as it was before {@code changeId}; a static pod is stopped
   * for it and started again (see {@link #staticPod}) when that changes its manifest. A process
   * keeps the setting until its next restart, which the caller makes.
   */
  private void restoreFlags(
      MemberHost host, ServiceManager service, MemberFlagFiles files, String changeId) {
    if (!staticPod()) {
      files.restore(host, changeId);
      return;
    }
    if (!files.restoreChanges(host, changeId)) return;
    service.stop(host);
    files.restore(host, changeId);
    service.start(host);
  }

  /**
   * Makes the member's newest snapshot cover {@code index}: when it does not yet, restarts the
   * member on the version it runs with --snapshot-count=1 where its flags live, waits
   * (heartbeating) until a snapshot at {@code index} or later is on disk, and puts its flags file
   * back (see {@link #restoreFlags}). Idempotent: a retry finds the snapshot there and only puts
   * the file back. Returns what it did.
   */
  String coverIndex(
      MemberHost host,
      ServiceManager service,
      MemberFlagFiles files,
      long index,
      Duration timeout) {
    String changeId = "snapshot-past-" + index;
    OptionalLong newest = newest(host);
    if (newest.isPresent() && newest.getAsLong() >= index) {
      restoreFlags(host, service, files, changeId);
      return "its newest raft snapshot (index %d) already covers index %d"
          .formatted(newest.getAsLong(), index);
    }
    long began = System.nanoTime();
    if (staticPod()) service.stop(host);
    try {
      files.set(host, Map.of("--snapshot-count", "1"), changeId, true);
      if (!staticPod()) service.stop(host);
      service.start(host);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (true) {
        newest = newest(host);
        if (newest.isPresent() && newest.getAsLong() >= index) break;
        if (System.nanoTime() > deadline || !service.isRunning(host)) {
          throw FailureType.MemberNotReady.nonRetryable(
              ("%s: no raft snapshot at index %d or later within %d s of its restart with"
                      + " --snapshot-count=1 (newest: %s; etcd %s); its WAL may still hold"
                      + " entries etcd 3.7 cannot read. Look at its log, restart it with"
                      + " --snapshot-count=1 until member/snap holds a snapshot at that index,"
                      + " then start the upgrade again")
                  .formatted(
                      host.describe(),
                      index,
                      timeout.toSeconds(),
                      newest.isPresent() ? "index " + newest.getAsLong() : "none",
                      service.isRunning(host) ? "runs" : "is not running"));
        }
        Heartbeats.beat("waiting for a raft snapshot at index " + index);
        Heartbeats.pause(100);
      }
    } catch (RuntimeException e) {
      try {
        restoreFlags(host, service, files, changeId);
        if (!service.isRunning(host)) service.start(host);
      } catch (RuntimeException notRestored) {
        e.addSuppressed(notRestored);
      }
      throw e;
    }
    restoreFlags(host, service, files, changeId);
    return "restarted with --snapshot-count=1 until its raft snapshot (index %d) covered index %d, %d ms"
        .formatted(newest.getAsLong(), index, (System.nanoTime() - began) / 1_000_000);
  }
}
