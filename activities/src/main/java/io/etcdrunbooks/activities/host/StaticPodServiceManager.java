package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.host.StaticPodManifest.Location;
import io.etcdrunbooks.activities.ssh.SshCommandException;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.inventory.ServiceSpec;
import java.time.Duration;

/**
 * etcd as a kubelet static pod (kubeadm's layout). Stopping moves the manifest out of kubelet's
 * manifests directory into the stash dir, starting moves it back; kubelet does the rest.
 *
 * <p>Whether the member runs is observed on the host without kubelet or CRI APIs: the manifest is
 * in place and a process whose argv[0] is etcd and which has the argument {@code --name=<member>}
 * (as kubeadm writes it) exists. Containers' processes are ordinary processes of the host, so this
 * needs only pgrep, not TLS to the client URL; health is the runbook's next check.
 */
public final class StaticPodServiceManager implements ServiceManager {

  private static final Duration POLL = Duration.ofMillis(100);
  private static final Duration STATUS_TIMEOUT = Duration.ofSeconds(30);

  private final StaticPodManifest manifest;
  private final String logCommand;
  private final Duration stopTimeout;
  private final Duration startTimeout;
  private final Duration startupGrace;

  /**
   * Bounds fit kubelet: it looks at its manifests every 20 s, pulls a new image and grants 30 s to
   * terminate.
   */
  public StaticPodServiceManager(SshConnector ssh, ServiceSpec spec) {
    this(ssh, spec, Duration.ofMinutes(2), Duration.ofMinutes(5), Duration.ofMillis(1500));
  }

  /**
   * @param stopTimeout how long the process may take to go after its manifest was moved out
   * @param startTimeout how long kubelet may take to start the process after its manifest was moved
   *     back
   * @param startupGrace how long the started process must stay up (the same pid) for start to
   *     succeed
   */
  public StaticPodServiceManager(
      SshConnector ssh,
      ServiceSpec spec,
      Duration stopTimeout,
      Duration startTimeout,
      Duration startupGrace) {
    this.manifest = new StaticPodManifest(ssh, spec);
    this.logCommand = spec.effectiveLogCommand();
    this.stopTimeout = stopTimeout;
    this.startTimeout = startTimeout;
    this.startupGrace = startupGrace;
  }

  /** Where the manifest is and the pid of the member's etcd (-1 when none runs). */
  record PodState(Location location, long pid) {
    boolean processUp() {
      return pid > 0;
    }
  }

  @Override
  public java.util.OptionalLong mainPid(MemberHost host) {
    long pid = state(host).pid();
    return pid > 0 ? java.util.OptionalLong.of(pid) : java.util.OptionalLong.empty();
  }

  PodState state(MemberHost host) {
    String out =
        manifest
            .exec(
                host,
                manifest.locateScript(host)
                    + "; printf ' '; pgrep -f -- "
                    + quote(processPattern(host))
                    + " | head -n 1; true",
                STATUS_TIMEOUT)
            .orThrow(host.target(), "check etcd of " + host.member().name())
            .stdout()
            .strip();
    String[] words = out.split("\\s+");
    long pid = words.length > 1 && words[1].matches("\\d+") ? Long.parseLong(words[1]) : -1;
    return new PodState(StaticPodManifest.parseLocation(words[0]), pid);
  }

  @Override
  public boolean isRunning(MemberHost host) {
    PodState state = state(host);
    return state.location() == Location.IN_PLACE && state.processUp();
  }

  @Override
  public boolean isStopped(MemberHost host) {
    PodState state = state(host);
    return state.location() != Location.IN_PLACE && !state.processUp();
  }

  @Override
  public void stop(MemberHost host) {
    if (state(host).location() == Location.IN_PLACE) {
      // mv -f: the manifest in place is the one in force; an older stashed copy is replaced
      manifest.run(
          host,
          "mkdir -p "
              + quote(manifest.stashDir(host))
              + " && mv -f "
              + quote(manifest.inPlacePath(host))
              + " "
              + quote(manifest.stashedPath(host)),
          "move the etcd manifest out of kubelet's manifests directory");
    }
    long deadline = System.nanoTime() + stopTimeout.toNanos();
    while (state(host).processUp()) {
      if (System.nanoTime() > deadline) {
        throw new SshCommandException(
            "etcd of "
                + host.describe()
                + " still runs "
                + stopTimeout.toSeconds()
                + " s after its manifest"
                + " was moved to "
                + manifest.stashedPath(host)
                + "; check kubelet on the host (crictl ps, journalctl -u kubelet)");
      }
      Heartbeats.beat("waiting for etcd of " + host.member().name() + " to exit");
      Heartbeats.pause(POLL.toMillis());
    }
  }

  @Override
  public void start(MemberHost host) {
    long pid = launchPod(host);
    if (pid < 0) return;
    long graceEnd = System.nanoTime() + startupGrace.toNanos();
    while (System.nanoTime() < graceEnd) {
      Heartbeats.beat("waiting for etcd of " + host.member().name() + " to stay up");
      Heartbeats.pause(POLL.toMillis());
      long now = state(host).pid();
      if (now != pid) {
        throw new MemberStartFailedException(
            "etcd of "
                + host.describe()
                + " exited right after kubelet started it"
                + (now > 0 ? " and was restarted" : "")
                + "; last log lines:\n"
                + logTail(host, 20));
      }
    }
  }

  @Override
  public void launch(MemberHost host) {
    launchPod(host);
  }

  /** Puts the manifest back and waits for kubelet's process: its pid, -1 when it ran already. */
  private long launchPod(MemberHost host) {
    PodState state = state(host);
    if (state.location() == Location.IN_PLACE && state.processUp()) return -1;
    if (state.location() == Location.MISSING) {
      throw new SshCommandException(
          "no etcd manifest for "
              + host.describe()
              + " at "
              + manifest.inPlacePath(host)
              + " or "
              + manifest.stashedPath(host)
              + "; restore it (a copy before the last install is "
              + manifest.backupPath(host)
              + ")");
    }
    if (state.location() == Location.STASHED) {
      manifest.run(
          host,
          "mv " + quote(manifest.stashedPath(host)) + " " + quote(manifest.inPlacePath(host)),
          "move the etcd manifest back into kubelet's manifests directory");
    }
    return awaitProcess(host);
  }

  private long awaitProcess(MemberHost host) {
    long deadline = System.nanoTime() + startTimeout.toNanos();
    while (true) {
      long pid = state(host).pid();
      if (pid > 0) return pid;
      if (System.nanoTime() > deadline) {
        throw new MemberStartFailedException(
            "etcd of "
                + host.describe()
                + " did not come up within "
                + startTimeout.toSeconds()
                + " s after its manifest was put back at "
                + manifest.inPlacePath(host)
                + "; last log lines:\n"
                + logTail(host, 20));
      }
      Heartbeats.beat("waiting for kubelet to start etcd of " + host.member().name());
      Heartbeats.pause(POLL.toMillis());
    }
  }

  /** The manifest moved out, then until kubelet has stopped the process, as {@link #stop}. */
  @Override
  public String stopScript(MemberHost host) {
    return "if [ -f %1$s ]; then mkdir -p %2$s && mv -f %1$s %3$s; fi\n"
            .formatted(
                quote(manifest.inPlacePath(host)),
                quote(manifest.stashDir(host)),
                quote(manifest.stashedPath(host)))
        + untilProcess(host, "", stopTimeout, "still runs after its manifest was moved out");
  }

  /** The manifest put back, then until kubelet has started the process, as {@link #launch}. */
  @Override
  public String launchScript(MemberHost host) {
    return ("if [ ! -f %1$s ]; then\n  [ -f %2$s ] || { echo 'no etcd manifest at '%1$s' or '%2$s"
                + " >&2; exit 1; }\n  mv %2$s %1$s\nfi\n")
            .formatted(quote(manifest.inPlacePath(host)), quote(manifest.stashedPath(host)))
        + untilProcess(host, "! ", startTimeout, "did not come up after its manifest was put back");
  }

  /** Polls pgrep until the process is there ({@code negate} "! ") or gone (""). */
  private String untilProcess(MemberHost host, String negate, Duration timeout, String failure) {
    return ("i=0\nwhile %spgrep -f -- %s >/dev/null; do\n  [ $i -ge %d ] && { echo 'etcd %s"
            + " within %d s' >&2; exit 1; }\n  sleep 0.1; i=$((i+1))\ndone\n")
        .formatted(
            negate,
            quote(processPattern(host)),
            timeout.toMillis() / POLL.toMillis(),
            failure,
            timeout.toSeconds());
  }

  @Override
  public String logTail(MemberHost host, int lines) {
    return manifest
        .exec(host, logCommand(logCommand, host, lines) + " 2>&1; true", STATUS_TIMEOUT)
        .stdout();
  }

  /**
   * The inventory's logCommand for this member: {@code {member}} becomes the member's name as one
   * quoted shell word (a name is data, never shell syntax), {@code {lines}} the line count.
   */
  static String logCommand(String template, MemberHost host, int lines) {
    return template
        .replace("{member}", quote(host.member().name()))
        .replace("{lines}", Integer.toString(Math.max(1, lines)));
  }

  /**
   * pgrep -f extended regex: argv[0] is etcd or a path ending in /etcd, and among its arguments are
   * exactly --name=<member> and --data-dir=<the member's data dir>, in either order. The data dir
   * tells apart members of the same name on one machine (several clusters' test sandboxes, or an
   * old etcd left running elsewhere on the host): no two etcds share one.
   */
  static String processPattern(MemberHost host) {
    String name = "--name=" + ere(host.member().name());
    String dataDir = "--data-dir=" + ere(host.member().dataDir());
    return "^([^ ]*/)?etcd .*(" + name + " .*" + dataDir + "|" + dataDir + " .*" + name + ")( |$)";
  }

  private static String ere(String literal) {
    return literal.replaceAll("[\\\\.^$|?*+()\\[\\]{}]", "\\\\$0");
  }
}
