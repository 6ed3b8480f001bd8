package io.etcdrunbooks.activities.host;

import java.util.List;
import java.util.Optional;

/**
 * The sudo rules the runbooks need on a host whose etcd is a systemd unit, as sudoers spells them
 * ({@code deploy/sudoers/etcd-runbooks} holds them for the unit {@code etcd}, docs/sudo.md says why
 * each is there). A preflight asks sudo about each ({@code sudo -n -l}) before anything runs, and a
 * refusal names the rule to add.
 */
public final class SudoRules {

  public static final String FILE = "/etc/sudoers.d/etcd-runbooks";

  private SudoRules() {}

  /** One command sudo must allow, and a concrete command line that exercises it. */
  public record Rule(String command, String probe) {

    /** The sudoers line giving it to {@code user}. */
    public String line(String user) {
      return user + " ALL=(root) NOPASSWD: " + command;
    }
  }

  public static List<Rule> systemd(String unit) {
    return List.of(start(unit), stop(unit), journal(unit), shell());
  }

  static Rule start(String unit) {
    String command = "/usr/bin/systemctl start --no-block " + unit;
    return new Rule(command, command);
  }

  static Rule stop(String unit) {
    String command = "/usr/bin/systemctl stop " + unit;
    return new Rule(command, command);
  }

  static Rule journal(String unit) {
    return new Rule(
        "/usr/bin/journalctl -u " + unit + " -n * --no-pager",
        "/usr/bin/journalctl -u " + unit + " -n 20 --no-pager");
  }

  /**
   * Files root owns (environment file, drop-ins, data dirs, restores) and another user's {@code
   * /proc/<pid>/environ}.
   */
  static Rule shell() {
    return new Rule("/bin/sh -c *", "/bin/sh -c true");
  }

  /**
   * A failure message for a command sudo refused, naming the command and the rule to add; empty
   * when the error output is not sudo's refusal.
   */
  public static Optional<String> refusal(String stderr, String user, Rule rule) {
    String s = stderr == null ? "" : stderr;
    if (!s.contains("sudo:") || !(s.contains("password is required") || s.contains("not allowed")))
      return Optional.empty();
    return Optional.of(
        ("sudo refused '%s' for %s (%s): add '%s' to %s on the host (deploy/sudoers/etcd-runbooks"
                + " and docs/sudo.md give every rule), then run the runbook again")
            .formatted(rule.probe(), user, s.strip().replace('\n', ' '), rule.line(user), FILE));
  }
}
