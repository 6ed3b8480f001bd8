package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.ssh.ExecResult;
import io.etcdrunbooks.activities.ssh.SshCommandException;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.support.Heartbeats;
import java.time.Duration;
import java.util.OptionalLong;

/**
 * etcd as a plain background process. The member's serviceDir holds {@code etcd.env} (ETCD_*
 * variables, one KEY=value per line), {@code etcd.pid} and {@code etcd.log}; the process runs
 * {@code <installDir>/current/etcd} in its own session so that it outlives the SSH connection that
 * started it.
 */
public final class PlainProcessServiceManager implements ServiceManager {

  public static final String ENV_FILE = "etcd.env";
  public static final String PID_FILE = "etcd.pid";
  public static final String LOG_FILE = "etcd.log";

  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration POLL = Duration.ofMillis(50);

  /**
   * Defines etcd_alive: true when etcd.pid names a live process whose argv[0] is an etcd binary. A
   * zombie has an empty cmdline, and a reused pid belongs to another program, so neither counts.
   * Sets $p to the pid.
   */
  private static final String ALIVE_FUNCTION =
      """
      etcd_alive() {
        p=$(cat etcd.pid 2>/dev/null) || return 1
        case "$p" in ''|*[!0-9]*) return 1;; esac
        a0=$(tr '\\0' '\\n' < /proc/"$p"/cmdline 2>/dev/null | head -n 1)
        case "$a0" in etcd|*/etcd) return 0;; esac
        return 1
      }
      """;

  private final SshConnector ssh;
  private final Duration stopTimeout;
  private final Duration startupGrace;

  public PlainProcessServiceManager(SshConnector ssh) {
    this(ssh, Duration.ofSeconds(30), Duration.ofMillis(1500));
  }

  /**
   * @param stopTimeout how long to wait after SIGTERM before SIGKILL
   * @param startupGrace how long a freshly started etcd must stay up for start to succeed, unless
   *     it says before that it serves clients
   */
  public PlainProcessServiceManager(SshConnector ssh, Duration stopTimeout, Duration startupGrace) {
    this.ssh = ssh;
    this.stopTimeout = stopTimeout;
    this.startupGrace = startupGrace;
  }

  @Override
  public boolean isRunning(MemberHost host) {
    return runningPid(host).isPresent();
  }

  @Override
  public OptionalLong mainPid(MemberHost host) {
    return runningPid(host);
  }

  /** The pid of the member's running etcd, empty when it does not run. */
  public OptionalLong runningPid(MemberHost host) {
    String out =
        run(
                host,
                inServiceDir(host)
                    + "if etcd_alive; then echo \"running $p\"; else echo stopped; fi",
                "check etcd")
            .stdout()
            .strip();
    return out.startsWith("running ")
        ? OptionalLong.of(Long.parseLong(out.substring(8).strip()))
        : OptionalLong.empty();
  }

  @Override
  public void start(MemberHost host) {
    OptionalLong logOffset = startProcess(host);
    if (logOffset.isEmpty()) return;
    long deadline = System.nanoTime() + startupGrace.toNanos();
    while (System.nanoTime() < deadline) {
      Heartbeats.beat("waiting for etcd of " + host.member().name() + " to stay up");
      sleep(POLL);
      StartState state = startState(host, logOffset.getAsLong());
      if (state == StartState.SERVING) return;
      if (state == StartState.EXITED) {
        throw new MemberStartFailedException(
            "etcd of "
                + host.describe()
                + " exited right after it was started; last lines of "
                + host.member().serviceDir()
                + "/"
                + LOG_FILE
                + ":\n"
                + logTail(host, 20));
      }
    }
  }

  @Override
  public void launch(MemberHost host) {
    startProcess(host);
  }

  /**
   * Starts the process unless one runs: the size its log had before the start, empty when one ran
   * already.
   */
  private OptionalLong startProcess(MemberHost host) {
    String script =
        inServiceDir(host)
            + "echo \"log-size $(stat -c %s "
            + LOG_FILE
            + " 2>/dev/null || echo 0)\"\n"
            + launchScript(host);
    String out = run(host, script, "start etcd").stdout().strip();
    String[] lines = out.split("\n");
    if (lines[lines.length - 1].startsWith("running ")) return OptionalLong.empty();
    return OptionalLong.of(Long.parseLong(lines[0].substring("log-size ".length()).strip()));
  }

  private enum StartState {
    EXITED,
    STARTING,
    SERVING
  }

  /**
   * Whether the etcd just started still runs, and whether it says it serves clients: every release
   * from 3.3 on logs "ready to serve client requests" once it has joined its cluster, and from then
   * on the grace has nothing left to show (a member that cannot reach quorum never says it, and
   * waits out the grace).
   */
  private StartState startState(MemberHost host, long logOffset) {
    String out =
        run(
                host,
                inServiceDir(host)
                    + "if ! etcd_alive; then echo exited; elif tail -c +"
                    + (logOffset + 1)
                    + " "
                    + LOG_FILE
                    + " 2>/dev/null | grep -q 'ready to serve client requests'; then echo serving;"
                    + " else echo starting; fi",
                "check etcd")
            .stdout()
            .strip();
    return switch (out) {
      case "exited" -> StartState.EXITED;
      case "serving" -> StartState.SERVING;
      default -> StartState.STARTING;
    };
  }

  @Override
  public String launchScript(MemberHost host) {
    String etcd = host.member().installDir() + "/current/etcd";
    return inServiceDir(host)
        + "if etcd_alive; then echo \"running $p\"; exit 0; fi\n"
        + "[ -x "
        + quote(etcd)
        + " ] || { echo 'no etcd installed at '"
        + quote(etcd)
        + " >&2; exit 3; }\n"
        + "[ -f "
        + ENV_FILE
        + " ] || { echo 'no "
        + ENV_FILE
        + " in '"
        + quote(host.member().serviceDir())
        + " >&2; exit 3; }\n"
        + "rm -f "
        + PID_FILE
        + "\n"
        // etcd.env is the only source of ETCD_* settings: drop inherited ones, export the
        // file's lines verbatim.
        + "for v in $(env | sed -n 's/^\\(ETCD_[A-Za-z0-9_]*\\)=.*/\\1/p'); do unset \"$v\"; done\n"
        + "while IFS= read -r line || [ -n \"$line\" ]; do case \"$line\" in ETCD_*=*) export \"$line\";; esac; done < "
        + ENV_FILE
        + "\n"
        + "setsid nohup /bin/sh -c 'echo $$ > "
        + PID_FILE
        + ".tmp && mv -f "
        + PID_FILE
        + ".tmp "
        + PID_FILE
        + " && exec \"$0\"' "
        + quote(etcd)
        + " </dev/null >>"
        + LOG_FILE
        + " 2>&1 &\n"
        + "i=0; while [ ! -s "
        + PID_FILE
        + " ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i+1)); done\n"
        + "[ -s "
        + PID_FILE
        + " ] || { echo 'etcd did not write its pid file within 10 s' >&2; exit 4; }\n"
        // the pid file is written by the shell just before it execs etcd: on a loaded host
        // that exec can come later than the first stay-up check, which would take the shell
        // for an etcd that died
        + "i=0; until etcd_alive || [ ! -d /proc/\"$(cat "
        + PID_FILE
        + ")\" ] || [ $i -ge 500 ]; do sleep 0.02; i=$((i+1)); done\n"
        + "echo \"started $(cat "
        + PID_FILE
        + ")\"\n";
  }

  /** SIGTERM, then SIGKILL after the stop timeout, as {@link #stop} does, all on the host. */
  @Override
  public String stopScript(MemberHost host) {
    long polls = Math.max(1, stopTimeout.toMillis() / POLL.toMillis());
    String waitGone = "i=0; while etcd_alive && [ $i -lt %d ]; do sleep 0.05; i=$((i+1)); done\n";
    return inServiceDir(host)
        + "if etcd_alive; then\n"
        + "  kill -TERM \"$p\"\n"
        + "  "
        + waitGone.formatted(polls)
        + "  if etcd_alive; then kill -KILL \"$p\"; "
        + waitGone.formatted(200)
        + "  fi\n"
        + "fi\n"
        + "if etcd_alive; then echo \"etcd (pid $p) still runs after SIGTERM, "
        + stopTimeout.toSeconds()
        + " s and SIGKILL\" >&2; exit 1; fi\n"
        + "rm -f "
        + PID_FILE
        + "\n";
  }

  @Override
  public void stop(MemberHost host) {
    String out =
        run(
                host,
                inServiceDir(host)
                    + "if etcd_alive; then kill -TERM \"$p\" && echo \"signalled $p\"; else rm -f "
                    + PID_FILE
                    + "; echo stopped; fi",
                "stop etcd")
            .stdout()
            .strip();
    if (out.equals("stopped")) return;
    if (!awaitStopped(host, stopTimeout)) {
      run(host, inServiceDir(host) + "if etcd_alive; then kill -KILL \"$p\"; fi", "kill etcd");
      if (!awaitStopped(host, Duration.ofSeconds(10))) {
        throw new SshCommandException(
            "etcd of "
                + host.describe()
                + " still runs after SIGTERM, "
                + stopTimeout.toSeconds()
                + " s and SIGKILL; look at the process on the host");
      }
    }
    run(host, inServiceDir(host) + "etcd_alive || rm -f " + PID_FILE, "remove the pid file");
  }

  @Override
  public String logTail(MemberHost host, int lines) {
    return run(
            host,
            "cd "
                + quote(host.member().serviceDir())
                + " 2>/dev/null && tail -n "
                + Math.max(1, lines)
                + " "
                + LOG_FILE
                + " 2>/dev/null; true",
            "read the etcd log")
        .stdout();
  }

  private boolean awaitStopped(MemberHost host, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (System.nanoTime() < deadline) {
      Heartbeats.beat("waiting for etcd of " + host.member().name() + " to exit");
      if (!isRunning(host)) return true;
      sleep(POLL);
    }
    return !isRunning(host);
  }

  private static String inServiceDir(MemberHost host) {
    String dir = quote(host.member().serviceDir());
    return "cd "
        + dir
        + " || { echo 'no service directory '"
        + dir
        + " >&2; exit 2; }\n"
        + ALIVE_FUNCTION;
  }

  private ExecResult run(MemberHost host, String script, String what) {
    ExecResult result = ssh.exec(host.target(), script, COMMAND_TIMEOUT);
    return host.requireOk(result, what);
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
