package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.activities.ssh.ExecResult;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.ssh.SshException;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.workflows.common.FailureType;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A member's host for work on its stopped data dir (restore, migration): shell scripts run with the
 * rights the data dir needs, and an etcd tool of a given version at hand there. A static pod's host
 * has etcd only in an image, so the version's tool is brought to a private directory for the length
 * of the work; plain and systemd members have it in their install dir.
 */
public final class MemberShell implements AutoCloseable {

  private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(10);

  private final ClusterSpec spec;
  private final MemberHost host;
  private final SshConnector ssh;
  private String staging;

  private MemberShell(ClusterSpec spec, MemberHost host, SshConnector ssh) {
    this.spec = spec;
    this.host = host;
    this.ssh = ssh;
  }

  /**
   * The member's host; refuses a cluster without a service kind.
   *
   * @param work what is to be done there, for the refusal ("migrating", "restoring")
   * @param byHand the document that says how to do it by hand
   */
  public static MemberShell of(
      ClusterSpec spec, String member, SshConnector ssh, String work, String byHand) {
    String kind = spec.service() == null ? null : spec.service().kind();
    if (kind == null) {
      throw ApplicationFailure.newNonRetryableFailure(
          "cluster '%s' names no service kind: %s needs one (do it by hand: %s)"
              .formatted(spec.name(), work, byHand),
          "ServiceKindNotSupported");
    }
    MemberSpec m =
        spec.findMember(member)
            .orElseThrow(
                () ->
                    FailureType.UnknownMember.nonRetryable(
                        "cluster '" + spec.name() + "' has no member '" + member + "'"));
    return new MemberShell(spec, MemberHost.of(spec, m), ssh);
  }

  public MemberHost host() {
    return host;
  }

  public String dataDir() {
    return host.member().dataDir();
  }

  /** Whether the member's etcd runs (or, for a static pod, kubelet would run it). */
  public boolean running() {
    return !ServiceManager.of(spec.service(), ssh).isStopped(host);
  }

  /** Runs the script with the rights the data dir needs; fails naming {@code what} and the host. */
  public ExecResult run(String script, String what) {
    return exec(privileged(script), what);
  }

  private ExecResult exec(String command, String what) {
    try {
      ExecResult result = ssh.exec(host.target(), command, COMMAND_TIMEOUT);
      if (!result.ok()) {
        throw ApplicationFailure.newFailure(
            "cannot %s on %s (exit %d): %s"
                .formatted(what, host.describe(), result.exitCode(), tail(result.stderr())),
            "HostCommandFailed");
      }
      return result;
    } catch (SshException e) {
      throw ApplicationFailure.newFailureWithCause(
          "cannot " + what + " on " + host.describe() + ": " + e.getMessage(),
          "HostUnreachable",
          e);
    }
  }

  /**
   * The path on the host of the version's {@code tool} (etcdctl, etcdutl): a plain member's own, or
   * for a static pod a copy from the release store in a private staging directory, removed by
   * {@link #close()}.
   */
  public String tool(String tool, String version, ReleaseStore releases) {
    if (!ServiceSpec.STATIC_POD.equals(spec.service().kind())) {
      return host.member().installDir() + "/current/" + tool;
    }
    return broughtTool(tool, version, releases);
  }

  /**
   * The path on the host of the version's {@code tool} copied from the release store to a private
   * staging directory (removed by {@link #close()}): another release's tool than the member runs.
   */
  public String broughtTool(String tool, String version, ReleaseStore releases) {
    String path = staging() + "/" + tool;
    ssh.upload(host.target(), releases.binDir(version).resolve(tool), path);
    exec("chmod 700 " + quote(path), "make " + path + " executable");
    return path;
  }

  /**
   * Copies local files to a private directory of the SSH user on the host (removed by {@link
   * #close()}); returns the directory. For secrets on their way to their place there.
   */
  public String upload(List<Path> files) {
    String dir = staging();
    for (Path file : files) {
      ssh.upload(host.target(), file, dir + "/" + file.getFileName());
    }
    return dir;
  }

  /** A private directory of the SSH user on the host for this shell's files (removed by close). */
  public String stagingDir() {
    return staging();
  }

  private String staging() {
    if (staging == null) {
      staging =
          // the SSH user's own (mode 0700): uploads are made as that user
          exec("mktemp -d /var/tmp/etcd-runbooks.XXXXXX", "create a private staging directory")
              .stdout()
              .strip();
    }
    return staging;
  }

  /**
   * Static pods' and systemd units' files belong to root: their commands go through {@code sudo -n}
   * when the SSH user is not root. A plain member's belong to the SSH user.
   */
  private String privileged(String script) {
    if (ServiceSpec.PLAIN.equals(spec.service().kind())) return script;
    return RootShell.asRoot(spec.service(), host.target().user(), script);
  }

  public static String tail(String text) {
    String t = text.strip();
    return t.length() <= 2000 ? t : "..." + t.substring(t.length() - 2000);
  }

  @Override
  public void close() {
    if (staging == null) return;
    try {
      ssh.exec(host.target(), "rm -rf " + quote(staging), Duration.ofSeconds(30));
    } catch (RuntimeException e) {
      org.slf4j.LoggerFactory.getLogger(MemberShell.class)
          .warn(
              "{}: staging directory {} not removed: {}", host.describe(), staging, e.getMessage());
    }
  }
}
