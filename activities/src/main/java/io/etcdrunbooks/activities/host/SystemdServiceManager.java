package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.ssh.ExecResult;
import io.etcdrunbooks.activities.ssh.SshCommandException;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;

/**
 * etcd as a systemd unit. systemd does the waiting on stop (and the SIGKILL after TimeoutStopSec);
 * start waits for the unit's own readiness. A login user other than root goes through {@code sudo
 * -n}.
 */
public final class SystemdServiceManager implements ServiceManager {

  public static final String DEFAULT_UNIT = io.etcdrunbooks.inventory.ServiceSpec.DEFAULT_UNIT;
  private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(3);
  private static final Duration READINESS_WAIT = Duration.ofSeconds(10);
  private static final Duration POLL = Duration.ofMillis(100);
  private static final Duration JOURNAL_FLUSH = Duration.ofSeconds(1);

  private final SshConnector ssh;
  private final String unit;
  private final Boolean sudo;

  public SystemdServiceManager(SshConnector ssh, String unit) {
    this(ssh, unit, null);
  }

  /**
   * @param sudo the inventory's {@code service.sudo} ({@link RootShell}); null: when the SSH user
   *     is not root
   */
  public SystemdServiceManager(SshConnector ssh, String unit, Boolean sudo) {
    this.ssh = ssh;
    this.unit = unit == null || unit.isBlank() ? DEFAULT_UNIT : unit;
    this.sudo = sudo;
  }

  @Override
  public java.util.OptionalLong mainPid(MemberHost host) {
    ExecResult result =
        ssh.exec(
            host.target(), "systemctl show -p MainPID --value " + quote(unit), COMMAND_TIMEOUT);
    String out = result.ok() ? result.stdout().strip() : "";
    return out.matches("[1-9]\\d*")
        ? java.util.OptionalLong.of(Long.parseLong(out))
        : java.util.OptionalLong.empty();
  }

  @Override
  public boolean isRunning(MemberHost host) {
    ExecResult result =
        ssh.exec(host.target(), isActiveCommand(host.target().user()), COMMAND_TIMEOUT);
    return result.ok();
  }

  /**
   * {@code systemctl start --no-block}, then the unit's own state: done once it is active (a {@code
   * Type=notify} etcd is active once it has joined its cluster); still activating with a process
   * after {@link #READINESS_WAIT} means it waits for its peers (a whole cluster starting after a
   * restore), which the runbook's health wait covers. A unit that fails, or that systemd is
   * restarting, fails the start with its last journal lines.
   */
  @Override
  public void start(MemberHost host) {
    if (isRunning(host)) return;
    ExecResult result =
        ssh.exec(host.target(), startCommand(host.target().user()), COMMAND_TIMEOUT);
    if (!result.ok()) {
      throw SudoRules.refusal(result.stderr(), host.target().user(), SudoRules.start(unit))
          .<RuntimeException>map(
              m ->
                  ApplicationFailure.newNonRetryableFailure(
                      host.describe() + ": " + m, "SudoRefused"))
          .orElseGet(() -> startFailed(host, result.stderr().strip()));
    }
    long deadline = System.nanoTime() + READINESS_WAIT.toNanos();
    while (true) {
      Heartbeats.beat("waiting for " + unit + " of " + host.member().name() + " to be ready");
      UnitState state = state(host);
      if (state.ready()) return;
      // systemd restarting it (Restart=) is given the rest of the wait: a member that fails once
      // and comes up on the next try is up; one still failing at the end is not
      if (state.failed()) throw startFailed(host, state.describe());
      if (System.nanoTime() > deadline) {
        if (state.activatingWithProcess()) return;
        throw startFailed(host, state.describe() + " after " + READINESS_WAIT.toSeconds() + " s");
      }
      sleep(POLL);
    }
  }

  private MemberStartFailedException startFailed(MemberHost host, String why) {
    sleep(JOURNAL_FLUSH); // journald writes a dying process's last lines a moment later
    return new MemberStartFailedException(
        "systemd unit "
            + unit
            + " of "
            + host.describe()
            + " did not start"
            + (why.isBlank() ? "" : " (" + why + ")")
            + "; last journal lines (journalctl -u "
            + unit
            + "):\n"
            + logTail(host, 20));
  }

  /** ActiveState, SubState and MainPID of the unit. */
  record UnitState(String activeState, String subState, long mainPid) {
    boolean ready() {
      return activeState.equals("active") && subState.equals("running");
    }

    /** systemd gave up on it (no Restart=, or its start limit hit). */
    boolean failed() {
      return activeState.equals("failed");
    }

    /** It exited and systemd will start it again (Restart=). */
    boolean restarting() {
      return subState.equals("auto-restart");
    }

    boolean activatingWithProcess() {
      return activeState.equals("activating") && mainPid > 0;
    }

    String describe() {
      return "ActiveState=" + activeState + ", SubState=" + subState;
    }

    static UnitState parse(String show) {
      String active = "";
      String sub = "";
      long pid = 0;
      for (String line : show.split("\n")) {
        if (line.startsWith("ActiveState=")) active = line.substring(12).strip();
        if (line.startsWith("SubState=")) sub = line.substring(9).strip();
        if (line.startsWith("MainPID=") && line.substring(8).strip().matches("\\d+"))
          pid = Long.parseLong(line.substring(8).strip());
      }
      return new UnitState(active, sub, pid);
    }
  }

  UnitState state(MemberHost host) {
    return UnitState.parse(
        ssh.exec(
                host.target(),
                "systemctl show -p ActiveState -p SubState -p MainPID " + quote(unit),
                COMMAND_TIMEOUT)
            .orThrow(host.target(), "read the state of " + unit + " on " + host.describe())
            .stdout());
  }

  private static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while starting etcd", e);
    }
  }

  @Override
  public void stop(MemberHost host) {
    if (!isRunning(host)) return;
    ExecResult result = ssh.exec(host.target(), stopCommand(host.target().user()), COMMAND_TIMEOUT);
    if (!result.ok()) {
      SudoRules.refusal(result.stderr(), host.target().user(), SudoRules.stop(unit))
          .ifPresent(
              m -> {
                throw ApplicationFailure.newNonRetryableFailure(
                    host.describe() + ": " + m, "SudoRefused");
              });
      throw new SshCommandException(
          ("cannot stop systemd unit "
              + unit
              + " of "
              + host.describe()
              + ": "
              + result.stderr().strip()));
    }
  }

  @Override
  public String logTail(MemberHost host, int lines) {
    ExecResult result =
        ssh.exec(host.target(), logTailCommand(host.target().user(), lines), COMMAND_TIMEOUT);
    return SudoRules.refusal(result.stderr(), host.target().user(), SudoRules.journal(unit))
        .orElse(result.stdout());
  }

  /** The command on the host runs as root: systemd waits for the stop (SIGKILL after its time). */
  @Override
  public String stopScript(MemberHost host) {
    return "systemctl stop " + quote(unit) + "\n";
  }

  /**
   * {@code systemctl start --no-block}, then until the unit has a main process (the runbook's
   * readiness wait and watch follow) or has failed, as {@link #start} reads it, for at most {@link
   * #READINESS_WAIT}.
   */
  @Override
  public String launchScript(MemberHost host) {
    String show = "systemctl show -p %s --value " + quote(unit);
    long polls = READINESS_WAIT.toMillis() / 50;
    return "systemctl start --no-block "
        + quote(unit)
        + "\ni=0\nwhile :; do\n"
        + "  case \"$("
        + show.formatted("ActiveState")
        + ")\" in failed) echo \"unit "
        + unit
        + " failed\" >&2; exit 1;; esac\n"
        + "  pid=$("
        + show.formatted("MainPID")
        + ")\n"
        + "  [ -n \"$pid\" ] && [ \"$pid\" != 0 ] && break\n"
        + "  [ $i -ge "
        + polls
        + " ] && { echo \"unit "
        + unit
        + " has no process "
        + READINESS_WAIT.toSeconds()
        + " s after its start\" >&2; exit 1; }\n"
        + "  sleep 0.05; i=$((i+1))\n"
        + "done\n";
  }

  /** Reading a unit's state needs no privilege: no sudo, so no rule for it. */
  String isActiveCommand(String user) {
    return "systemctl is-active --quiet " + quote(unit);
  }

  String startCommand(String user) {
    return prefix(user) + "systemctl start --no-block " + quote(unit);
  }

  String stopCommand(String user) {
    return prefix(user) + "systemctl stop " + quote(unit);
  }

  String logTailCommand(String user, int lines) {
    return prefix(user)
        + "journalctl -u "
        + quote(unit)
        + " -n "
        + Math.max(1, lines)
        + " --no-pager";
  }

  private String prefix(String user) {
    return RootShell.viaSudo(sudo, user) ? "sudo -n " : "";
  }
}
