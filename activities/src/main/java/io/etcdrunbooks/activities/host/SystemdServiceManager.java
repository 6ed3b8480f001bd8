package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.ssh.ExecResult;
import io.etcdrunbooks.activities.ssh.SshCommandException;
import io.etcdrunbooks.activities.ssh.SshConnector;
import java.time.Duration;

/**
 * etcd as a systemd unit whose ExecStart runs {@code <installDir>/current/etcd}. systemd does the
 * waiting (and the SIGKILL after TimeoutStopSec). A login user other than root goes through {@code
 * sudo -n}.
 */
public final class SystemdServiceManager implements ServiceManager {

  public static final String DEFAULT_UNIT = "etcd";
  private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(3);

  private final SshConnector ssh;
  private final String unit;

  public SystemdServiceManager(SshConnector ssh, String unit) {
    this.ssh = ssh;
    this.unit = unit == null || unit.isBlank() ? DEFAULT_UNIT : unit;
  }

  @Override
  public java.util.OptionalLong mainPid(MemberHost host) {
    ExecResult result =
        ssh.exec(
            host.target(),
            prefix(host.target().user()) + "systemctl show -p MainPID --value " + quote(unit),
            COMMAND_TIMEOUT);
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

  @Override
  public void start(MemberHost host) {
    if (isRunning(host)) return;
    ExecResult result =
        ssh.exec(host.target(), startCommand(host.target().user()), COMMAND_TIMEOUT);
    if (!result.ok() || !isRunning(host)) {
      throw new MemberStartFailedException(
          "systemd unit "
              + unit
              + " of "
              + host.describe()
              + " did not start"
              + (result.stderr().isBlank() ? "" : " (" + result.stderr().strip() + ")")
              + "; last journal lines:\n"
              + logTail(host, 20));
    }
  }

  @Override
  public void stop(MemberHost host) {
    if (!isRunning(host)) return;
    ExecResult result = ssh.exec(host.target(), stopCommand(host.target().user()), COMMAND_TIMEOUT);
    if (!result.ok()) {
      throw new SshCommandException(
          "cannot stop systemd unit "
              + unit
              + " of "
              + host.describe()
              + ": "
              + result.stderr().strip());
    }
  }

  @Override
  public String logTail(MemberHost host, int lines) {
    return ssh.exec(host.target(), logTailCommand(host.target().user(), lines), COMMAND_TIMEOUT)
        .stdout();
  }

  String isActiveCommand(String user) {
    return prefix(user) + "systemctl is-active --quiet " + quote(unit);
  }

  String startCommand(String user) {
    return prefix(user) + "systemctl start " + quote(unit);
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

  private static String prefix(String user) {
    return "root".equals(user) ? "" : "sudo -n ";
  }
}
