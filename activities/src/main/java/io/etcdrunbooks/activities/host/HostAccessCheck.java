package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.ssh.ExecResult;
import io.etcdrunbooks.activities.ssh.HostKeyRejectedException;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.ssh.SshException;
import io.etcdrunbooks.activities.ssh.SshTarget;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.ControlPlaneHost;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.ServiceSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Before a runbook's first change: every host it may touch is logged in to over a new session (the
 * host key checked against known_hosts now) and shown able to run the runbook's commands. Nothing
 * is changed on any host.
 */
final class HostAccessCheck {

  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);

  private final SshConnector ssh;

  HostAccessCheck(SshConnector ssh) {
    this.ssh = ssh;
  }

  /**
   * One problem per host that cannot be used, naming it and what to do; empty when all can.
   *
   * @param exceptMembers members, and control-plane hosts, whose hosts are not required
   */
  List<String> problems(
      ClusterSpec cluster, Collection<String> exceptMembers, boolean controlPlaneEdits) {
    List<Supplier<Optional<String>>> checks = new ArrayList<>();
    for (MemberSpec member : cluster.members()) {
      if (exceptMembers.contains(member.name())) continue;
      MemberHost host = MemberHost.of(cluster, member);
      checks.add(
          () ->
              check(
                  "member " + member.name(), host.target(), memberScript(cluster.service(), host)));
    }
    for (ControlPlaneHost cp : cluster.controlPlane()) {
      if (exceptMembers.contains(cp.name())) continue;
      SshTarget target = SshTarget.of(cluster, cp);
      checks.add(
          () ->
              check(
                  "control-plane host " + cp.name(),
                  target,
                  controlPlaneScript(cp, controlPlaneEdits)));
    }
    return inParallel(checks);
  }

  /**
   * Every host at once (each check is a new login, a key exchange of its own), at most {@link
   * #PARALLEL_LOGINS} at a time; the problems in the hosts' order.
   */
  private static List<String> inParallel(List<Supplier<Optional<String>>> checks) {
    ExecutorService pool =
        Executors.newFixedThreadPool(Math.max(1, Math.min(PARALLEL_LOGINS, checks.size())));
    try {
      List<Future<Optional<String>>> running = new ArrayList<>();
      for (Supplier<Optional<String>> check : checks) running.add(pool.submit(check::get));
      List<String> problems = new ArrayList<>();
      for (Future<Optional<String>> check : running) {
        while (true) {
          try {
            check.get(1, TimeUnit.SECONDS).ifPresent(problems::add);
            break;
          } catch (TimeoutException stillRunning) {
            Heartbeats.beat("checking SSH access to every host");
          } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r
                ? r
                : new IllegalStateException(e.getCause());
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while checking SSH access", e);
          }
        }
      }
      return problems;
    } finally {
      pool.shutdownNow();
    }
  }

  private static final int PARALLEL_LOGINS = 8;

  private Optional<String> check(String who, SshTarget target, String script) {
    String where = who + " (" + target.address() + ")";
    Heartbeats.beat("checking SSH access to " + where);
    try {
      ExecResult result = ssh.execOnNewSession(target, script, COMMAND_TIMEOUT);
      if (result.ok()) return Optional.empty();
      String found = (result.stdout() + result.stderr()).strip().replace("\n", "; ");
      return Optional.of(
          where
              + " cannot run the runbook's commands: "
              + (found.isEmpty() ? "exit code " + result.exitCode() : found)
              + ". Next: fix that on the host (as the inventory's SSH user "
              + target.user()
              + "), then start the runbook again");
    } catch (HostKeyRejectedException e) {
      return Optional.of(
          where + ": " + e.getMessage() + ". Nothing is done on any host until this is settled");
    } catch (SshException e) {
      return Optional.of(where + ": " + e.getMessage());
    }
  }

  /**
   * A POSIX sh script that prints one line per thing missing and exits 3 when anything is: the
   * commands the service manager and installer run, {@code sudo -n} when they go through it, and
   * the directories they write.
   */
  static String memberScript(ServiceSpec service, MemberHost host) {
    String user = host.target().user();
    MemberSpec m = host.member();
    StringBuilder script = new StringBuilder("p=0\n");
    if (ServiceSpec.STATIC_POD.equals(service.kind())) {
      StaticPodManifest manifest = new StaticPodManifest(null, service);
      commands(script, "base64", "pgrep", "sha256sum", "mv", "crictl");
      String sudo = manifest.usesSudo(host) ? "sudo -n " : "";
      if (!sudo.isEmpty()) sudoWorks(script, user);
      script
          .append(sudo)
          .append("test -d ")
          .append(quote(manifest.manifestsDir(host)))
          .append(" || { echo ")
          .append(
              quote(
                  "kubelet's manifests directory "
                      + manifest.manifestsDir(host)
                      + " is missing (service.manifestPath)"))
          .append("; p=1; }\n");
    } else {
      boolean systemd = ServiceSpec.SYSTEMD.equals(service.kind());
      if (systemd) {
        commands(script, "sha256sum", "readlink", "systemctl", "journalctl");
        if (RootShell.viaSudo(service, user)) sudoAllows(script, user, service.effectiveUnit());
      } else {
        commands(script, "sha256sum", "readlink", "setsid", "nohup");
        writableDir(script, "serviceDir", m.serviceDir(), user);
      }
      writableDir(script, "installDir", m.installDir(), user);
    }
    return script.append("exit $((p * 3))\n").toString();
  }

  /**
   * The host is reached and, when the runbook edits manifests, the manifests directory is writable
   * (no sudo there).
   */
  static String controlPlaneScript(ControlPlaneHost cp, boolean edits) {
    String dir = cp.manifestPath().substring(0, Math.max(1, cp.manifestPath().lastIndexOf('/')));
    StringBuilder script = new StringBuilder("p=0\n");
    if (edits) writableDir(script, "the kube-apiserver manifest's directory", dir, "the SSH user");
    return script.append("exit $((p * 3))\n").toString();
  }

  private static void commands(StringBuilder script, String... names) {
    script
        .append("for c in ")
        .append(String.join(" ", names))
        .append("; do command -v \"$c\" >/dev/null 2>&1 || { echo \"command $c is")
        .append(" not installed or not on the PATH\"; p=1; }; done\n");
  }

  /**
   * Each rule of {@link SudoRules#systemd} asked of sudo without running anything ({@code sudo -n
   * -l <command>}); a missing one is named with the line to add.
   */
  private static void sudoAllows(StringBuilder script, String user, String unit) {
    for (SudoRules.Rule rule : SudoRules.systemd(unit)) {
      script
          .append("sudo -n -l ")
          .append(rule.probe())
          .append(" >/dev/null 2>&1 || { echo ")
          .append(
              quote(
                  "sudo does not let "
                      + user
                      + " run '"
                      + rule.probe()
                      + "': add '"
                      + rule.line(user)
                      + "' to "
                      + SudoRules.FILE
                      + " (docs/sudo.md)"))
          .append("; p=1; }\n");
    }
  }

  private static void sudoWorks(StringBuilder script, String user) {
    script
        .append("sudo -n true >/dev/null 2>&1 || { echo ")
        .append(
            quote(
                "sudo -n true fails for "
                    + user
                    + ": allow it passwordless sudo for the service manager's commands"))
        .append("; p=1; }\n");
  }

  private static void writableDir(StringBuilder script, String field, String dir, String user) {
    if (dir == null || dir.isBlank()) return;
    script
        .append("{ test -d ")
        .append(quote(dir))
        .append(" && test -w ")
        .append(quote(dir))
        .append("; } || { echo ")
        .append(quote(field + " " + dir + " is not a directory " + user + " can write"))
        .append("; p=1; }\n");
  }
}
