package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.release.ReleaseChecksumException;
import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.activities.ssh.ExecResult;
import io.etcdrunbooks.activities.ssh.SshCommandException;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.ssh.SshException;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.inventory.UnknownClusterException;
import io.etcdrunbooks.workflows.activities.NewMemberActivities;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link NewMemberActivities} for the plain service manager: binaries under installDir, settings in
 * {@code serviceDir/etcd.env}. The settings that are not the member's own (TLS files, logger, quotas) are copied from
 * a running member's etcd.env, so the new member runs like its peers.
 */
public final class NewMemberActivitiesImpl implements NewMemberActivities {

  private static final Logger log = LoggerFactory.getLogger(NewMemberActivitiesImpl.class);
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);

  private final Supplier<Inventory> inventory;
  private final SshConnector ssh;
  private final ReleaseStore releases;
  private final BinaryInstaller binaries;

  public NewMemberActivitiesImpl(Supplier<Inventory> inventory, SshConnector ssh, ReleaseStore releases) {
    this.inventory = inventory;
    this.ssh = ssh;
    this.releases = releases;
    this.binaries = new BinaryInstaller(ssh);
  }

  @Override
  public void checkHost(NewMemberRequest request) {
    on(request.cluster(), request.member(), "check the host", (cluster, host) -> {
      binDir(request.version());
      ExecResult result = ssh.exec(host.target(), "command -v sha256sum >/dev/null && command -v setsid >/dev/null && echo ok",
          COMMAND_TIMEOUT);
      if (!result.ok() || !result.stdout().contains("ok")) {
        throw ApplicationFailure.newNonRetryableFailure("host of the new member " + host.describe()
            + " lacks sha256sum or setsid, which installing and running etcd there needs", "HostNotUsable");
      }
      return null;
    });
  }

  @Override
  public void prepare(PrepareRequest request) {
    on(request.cluster(), request.member(), "prepare the new member", (cluster, host) -> {
      Path binDir = binDir(request.version());
      ServiceManager service = ServiceManager.of(cluster.service(), ssh);
      MemberEnv current = MemberEnv.parse(readIfExists(host, envFile(host)));
      boolean ours = host.member().name().equals(current.get("ETCD_NAME"));
      if (ours && service.isRunning(host)) {
        log.info("{}: already prepared and running", host.describe());
        return null;
      }
      if (!ours) {
        // an etcd still running from this service dir is the replaced member's (a forced replacement)
        if (service.isRunning(host)) service.stop(host);
        keepDataDirAside(host);
      }
      run(host, "mkdir -p " + quote(host.member().dataDir()) + " " + quote(host.member().serviceDir()) + " && chmod 700 "
          + quote(host.member().dataDir()), "create the data and service directories");
      log.info("{}: etcd {}: {}", host.describe(), request.version(), binaries.installAndSelect(host, request.version(), binDir));
      MemberEnv env = MemberEnv.parse(templateEnv(cluster, host)).forJoining(host.member(), request.initialCluster());
      writeAtomically(host, envFile(host), env.render());
      log.info("{}: settings written to join the existing cluster as '{}'", host.describe(), host.member().name());
      return null;
    });
  }

  @Override
  public void start(NewMemberRequest request) {
    on(request.cluster(), request.member(), "start etcd", (cluster, host) -> {
      ServiceManager.of(cluster.service(), ssh).start(host);
      return null;
    });
  }

  @Override
  public void discard(NewMemberRequest request) {
    on(request.cluster(), request.member(), "discard the new member", (cluster, host) -> {
      ServiceManager service = ServiceManager.of(cluster.service(), ssh);
      MemberEnv current = MemberEnv.parse(readIfExists(host, envFile(host)));
      if (!host.member().name().equals(current.get("ETCD_NAME"))) {
        log.info("{}: nothing of the new member to discard", host.describe());
        return null;
      }
      if (service.isRunning(host)) service.stop(host);
      keepDataDirAside(host);
      return null;
    });
  }

  @Override
  public String logTail(NewMemberRequest request) {
    return on(request.cluster(), request.member(), "read the etcd log",
        (cluster, host) -> ServiceManager.of(cluster.service(), ssh).logTail(host, 20));
  }

  /** The etcd.env of the first inventory member (other than the new one) whose file can be read. */
  private String templateEnv(ClusterSpec cluster, MemberHost newMember) {
    for (MemberSpec m : cluster.members()) {
      if (m.name().equals(newMember.member().name())) continue;
      MemberHost peer = MemberHost.of(cluster, m);
      try {
        String text = readIfExists(peer, envFile(peer));
        if (!text.isBlank()) return text;
      } catch (SshException e) {
        log.info("{}: its settings cannot be read to copy ({}); trying the next member", peer.describe(), e.getMessage());
      }
    }
    return "";
  }

  /** Renames a non-empty data dir to {@code <dataDir>.replaced-<time>}: never deleted, never reused by mistake. */
  private void keepDataDirAside(MemberHost host) {
    String dir = quote(host.member().dataDir());
    String out = run(host, "if [ -d " + dir + " ] && [ -n \"$(ls -A " + dir + ")\" ]; then t=" + dir + ".replaced-$(date -u +%Y%m%dT%H%M%SZ);"
        + " mv -T " + dir + " \"$t\" && echo \"$t\"; fi", "keep the old data dir aside").stdout().strip();
    if (!out.isEmpty()) log.info("{}: old data dir kept as {}", host.describe(), out);
  }

  private static String envFile(MemberHost host) {
    return host.member().serviceDir() + "/" + PlainProcessServiceManager.ENV_FILE;
  }

  private String readIfExists(MemberHost host, String path) {
    return run(host, "if [ -f " + quote(path) + " ]; then cat " + quote(path) + "; fi", "read " + path).stdout();
  }

  private void writeAtomically(MemberHost host, String path, String content) {
    String tmp = path + ".tmp";
    ssh.writeFile(host.target(), tmp, content);
    run(host, "chmod 600 " + quote(tmp) + " && mv -f " + quote(tmp) + " " + quote(path), "put " + path + " in place");
  }

  private ExecResult run(MemberHost host, String script, String what) {
    ExecResult result = ssh.exec(host.target(), script, COMMAND_TIMEOUT);
    if (!result.ok()) {
      throw new SshCommandException("cannot " + what + " for " + host.describe() + " (exit code " + result.exitCode() + ")"
          + (result.stderr().isBlank() ? "" : ": " + result.stderr().strip()));
    }
    return result;
  }

  private Path binDir(String version) {
    try {
      return releases.binDir(version);
    } catch (IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), "UnknownVersion");
    } catch (ReleaseChecksumException e) {
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), "ReleaseChecksumMismatch");
    }
  }

  private interface Action<T> {
    T apply(ClusterSpec cluster, MemberHost host);
  }

  private <T> T on(String clusterName, MemberPlacement placement, String what, Action<T> action) {
    ClusterSpec cluster;
    try {
      cluster = inventory.get().cluster(clusterName);
    } catch (UnknownClusterException e) {
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), "UnknownCluster");
    }
    String kind = cluster.service() == null ? null : cluster.service().kind();
    if (!ServiceSpec.PLAIN.equals(kind)) {
      throw ApplicationFailure.newNonRetryableFailure("cluster '" + clusterName + "' runs etcd as '" + kind + "': preparing a new"
          + " member's host is built for the 'plain' service manager only so far. Join the member by hand (kubeadm join,"
          + " or your unit's settings with initial-cluster-state=existing), then run the runbook again: it skips what is done",
          "ServiceKindNotSupported");
    }
    MemberSpec spec = new MemberSpec(placement.name(), placement.host(), placement.sshPort(), placement.clientUrl(),
        placement.peerUrl(), placement.dataDir(), placement.installDir(), placement.serviceDir());
    MemberHost host = MemberHost.of(cluster, spec);
    return HostFailures.translate(host, what + " (new member)", () -> action.apply(cluster, host));
  }
}
