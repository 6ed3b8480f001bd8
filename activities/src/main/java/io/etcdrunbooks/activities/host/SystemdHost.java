package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.ssh.ExecResult;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;

/**
 * Commands and files on a host whose etcd is a systemd unit: root's, so through {@code sudo -n}
 * unless the SSH user is root (or as the inventory's {@code service.sudo} says).
 */
final class SystemdHost {

  private static final Duration TIMEOUT = Duration.ofSeconds(60);

  private final SshConnector ssh;
  private final ServiceSpec spec;

  private SystemdHost(SshConnector ssh, ServiceSpec spec) {
    this.ssh = ssh;
    this.spec = spec;
  }

  static SystemdHost of(SshConnector ssh, ServiceSpec spec) {
    return new SystemdHost(ssh, spec);
  }

  /** Runs the script as root; fails naming {@code what} and the host. */
  ExecResult run(MemberHost host, String script, String what) {
    return runUnchecked(host, script).orThrow(host.target(), what + " for " + host.describe());
  }

  /** Runs the script as root and returns its result, failed or not (a sudo refusal fails). */
  ExecResult runUnchecked(MemberHost host, String script) {
    boolean needed = RootShell.viaSudo(spec, host.target().user());
    ExecResult result =
        ssh.exec(host.target(), RootShell.asRoot(spec, host.target().user(), script), TIMEOUT);
    if (!result.ok() && needed) {
      SudoRules.refusal(result.stderr(), host.target().user(), SudoRules.shell())
          .ifPresent(
              m -> {
                throw ApplicationFailure.newNonRetryableFailure(
                    host.describe() + ": " + m, "SudoRefused");
              });
    }
    return result;
  }

  /** Writes {@code content} to {@code path} with {@code mode}, through a private staging file. */
  void write(MemberHost host, String path, String content, String mode) {
    String staging =
        ssh.exec(host.target(), "mktemp /var/tmp/etcd-runbooks.XXXXXX", TIMEOUT)
            .orThrow(host.target(), "create a staging file")
            .stdout()
            .strip();
    try {
      ssh.writeFile(host.target(), staging, content);
      run(
          host,
          "mkdir -p %s && install -m %s %s %s.tmp && mv -f %s.tmp %s"
              .formatted(
                  quote(path.substring(0, Math.max(1, path.lastIndexOf('/')))),
                  mode,
                  quote(staging),
                  quote(path),
                  quote(path),
                  quote(path)),
          "put " + path + " in place");
    } finally {
      ssh.exec(host.target(), "rm -f " + quote(staging), TIMEOUT);
    }
  }
}
