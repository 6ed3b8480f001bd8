package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.temporal.failure.ApplicationFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A member taken out of its cluster by RecoverQuorum made unable to run on the old membership: its
 * etcd stopped (a static pod's manifest out of kubelet's directory; a systemd unit disabled when
 * asked), its data dir renamed to {@code <dataDir>.fenced-<fencedBy>} (kept, never deleted) and a
 * marker beside it that says why. Each step looks first and skips what is done.
 */
public final class MemberFence {

  private static final String BY_HAND = "docs/runbooks/recover-quorum.md";

  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(3);

  private final SshConnector ssh;

  public MemberFence(SshConnector ssh) {
    this.ssh = ssh;
  }

  /**
   * Fences the member on its host; it need not be in the inventory's members any more (a
   * tombstone's). Returns what was done, in words.
   */
  public String fence(ClusterSpec cluster, MemberSpec member, String fencedBy, boolean disable) {
    ClusterSpec alone = cluster.withMembers(List.of(member));
    try (MemberShell shell =
        MemberShell.of(alone, member.name(), ssh, "fencing a lost member", BY_HAND)) {
      List<String> done = new ArrayList<>();
      // no hand-over to wait for: a fenced member's cluster is not the one kept
      ServiceManager service =
          ServiceSpec.PLAIN.equals(cluster.service().kind())
              ? new PlainProcessServiceManager(ssh, STOP_TIMEOUT, Duration.ofMillis(1500))
              : ServiceManager.of(cluster.service(), ssh);
      if (!service.isStopped(shell.host())) {
        service.stop(shell.host());
        done.add("etcd stopped");
      }
      if (!service.isStopped(shell.host()))
        throw ApplicationFailure.newNonRetryableFailure(
            shell.host().describe() + " still runs etcd after it was stopped: stop it by hand",
            "MemberStillRunning");
      String unit = cluster.service().effectiveUnit();
      if (disable && ServiceSpec.SYSTEMD.equals(cluster.service().kind())) {
        String out =
            shell
                .run(
                    "if systemctl is-enabled --quiet %s; then systemctl disable --quiet %s && echo disabled; fi"
                        .formatted(quote(unit), quote(unit)),
                    "disable the unit " + unit)
                .stdout()
                .strip();
        if (out.equals("disabled")) done.add("unit " + unit + " disabled");
      }
      String data = member.dataDir();
      String aside = data + ".fenced-" + fencedBy;
      String marker = aside + ".README";
      String why =
          ("etcd member %s of cluster '%s' was fenced by RecoverQuorum (%s): the cluster was rebuilt"
                  + " without it, and this member must never run again on its old data. Its data"
                  + " dir, if it had one, is kept at %s. See %s.")
              .formatted(member.name(), cluster.name(), fencedBy, aside, BY_HAND);
      String out =
          shell
              .run(
                  ("d=%s; t=%s\n"
                          + "if [ -d \"$d\" ] && [ -n \"$(ls -A \"$d\")\" ]; then\n"
                          + "  [ -e \"$t\" ] && t=\"$t-$(date -u +%%Y%%m%%dT%%H%%M%%SZ)\"\n"
                          + "  mv -T \"$d\" \"$t\" && echo \"renamed $t\"\n"
                          + "fi\n"
                          + "[ -f %s ] || printf '%%s\\n' %s > %s\n")
                      .formatted(
                          quote(data), quote(aside), quote(marker), quote(why), quote(marker)),
                  "rename the data dir " + data + " and leave a marker")
              .stdout()
              .strip();
      if (out.startsWith("renamed "))
        done.add("data dir renamed to " + out.substring(8) + " (kept)");
      done.add("marker " + marker);
      return shell.host().describe() + ": " + String.join(", ", done);
    }
  }
}
