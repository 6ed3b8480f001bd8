package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.ssh.SshConnector;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;

/**
 * The restart command's {@code check} step, between the stop and the switch: on a member that
 * leaves 3.5 for 3.6, {@code etcdutl check v2store} of the version it ran, on its data dir while no
 * etcd has it open. etcd 3.6 has no v2 store and refuses to replay custom v2 requests (etcd's 3.6
 * upgrade guide, https://etcd.io/docs/v3.6/upgrades/upgrade_3_6/: "Run the command etcdutl check
 * v2store"); from 3.5.32 the check also reads the WAL records after the newest v2 snapshot (etcd PR
 * #21889; before, keys only in the WAL were missed), and the ladder reaches 3.6 only from 3.5.32 or
 * later. When it does not come out clean the member is started again on the version it ran, the
 * step fails, and the restart ends with {@link #FAILURE_TYPE}. The preflight's reading of the v2
 * API (TransitionRules) stays: it sees the data only while a member serves the API.
 */
final class V2StoreCheck {

  static final String STEP = "check";

  /** The activity failure a restart ends with when the check found v2 content or could not run. */
  static final String FAILURE_TYPE = "V2StoreNotEmpty";

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private V2StoreCheck() {}

  /**
   * The step's shell lines for a restart from {@code running} (the version the {@code current} link
   * selects, empty when none) to {@code target}; {@code :} when the move does not leave 3.5 for 3.6
   * or later. {@code startAgain} names the shell function that starts the member as it was.
   */
  static String script(
      MemberHost host, Optional<String> running, String target, String startAgain) {
    if (running.isEmpty() || !leaves35(running.get(), target)) return ":\n";
    String etcdutl = host.member().installDir() + "/versions/" + running.get() + "/etcdutl";
    return ("u=%1$s\n"
            + "if [ -x \"$u\" ]; then out=$(\"$u\" check v2store --data-dir %2$s 2>&1); rc=$?;"
            + " else out='no etcdutl beside etcd %3$s in %4$s'; rc=127; fi\n"
            + "echo \"etcdutl %3$s check v2store: $out\"\n"
            + "if [ $rc -ne 0 ]; then %5$s; exit 1; fi\n")
        .formatted(
            quote(etcdutl),
            quote(host.member().dataDir()),
            running.get(),
            quote(host.member().installDir() + "/versions/" + running.get()),
            startAgain);
  }

  /**
   * The step for a static pod, whose host has no etcd binaries (they are in the image): the leaving
   * release's own etcdutl, copied by {@link #copyTo} to a private directory on the host, run as the
   * data dir's owner (the command itself runs as root) so that nothing in the data dir changes
   * hands, and removed once it has answered; refused alike when it does not come out clean.
   */
  static String staticPodScript(
      MemberHost host, String running, CopiedEtcdutl copied, String startAgain) {
    String dataDir = quote(host.member().dataDir());
    return ("u=%1$s\no=$(stat -c %%u:%%g %2$s 2>/dev/null)\nas=\n"
            + "if [ -n \"$o\" ] && [ \"$o\" != \"$(id -u):$(id -g)\" ]; then chown -R \"$o\" %3$s;"
            + " as=\"setpriv --reuid=${o%%:*} --regid=${o#*:} --clear-groups\"; fi\n"
            + "if [ -x \"$u\" ]; then out=$($as \"$u\" check v2store --data-dir %2$s 2>&1); rc=$?;"
            + " else out='no etcdutl %4$s copied to '%3$s; rc=127; fi\n"
            + "%5$s"
            + "echo \"etcdutl %4$s check v2store: $out\"\n"
            + "if [ $rc -ne 0 ]; then %6$s; exit 1; fi\n")
        .formatted(
            quote(copied.etcdutl()),
            dataDir,
            quote(copied.dir()),
            running,
            copied.removal(),
            startAgain);
  }

  /** A release's etcdutl copied to a host for one restart, alone in a directory of its own. */
  record CopiedEtcdutl(String dir) {
    String etcdutl() {
      return dir + "/etcdutl";
    }

    /** Shell lines removing it; the restart's command runs them however it ends, too. */
    String removal() {
      return "rm -rf " + quote(dir) + "\n";
    }
  }

  /**
   * Copies the etcdutl of {@code running} from the worker's release store ({@code binDir}) over
   * SFTP to a new private directory of the SSH user on the host ({@code mktemp -d}: mode 0700), for
   * a restart that leaves 3.5 for 3.6 or later; empty for any other move. A copy that fails leaves
   * nothing behind.
   */
  static Optional<CopiedEtcdutl> copyTo(
      SshConnector ssh,
      MemberHost host,
      String running,
      String target,
      Function<String, Path> binDir) {
    if (!leaves35(running, target)) return Optional.empty();
    Path etcdutl = binDir.apply(running).resolve("etcdutl");
    if (!Files.isRegularFile(etcdutl)) {
      throw ApplicationFailure.newNonRetryableFailure(
          ("%s: the worker's release store has no etcdutl for etcd %s (%s), whose `etcdutl check"
                  + " v2store` must read the member's data dir before it leaves 3.5 for %s; nothing"
                  + " was stopped. Put etcd %s's release (with etcdutl) in the release store, then"
                  + " run again")
              .formatted(host.describe(), running, etcdutl, target, running),
          FAILURE_TYPE);
    }
    String dir =
        host.requireOk(
                ssh.exec(host.target(), "mktemp -d /var/tmp/etcd-runbooks-v2check.XXXXXX", TIMEOUT),
                "create a private directory for etcdutl " + running)
            .stdout()
            .strip();
    CopiedEtcdutl copied = new CopiedEtcdutl(dir);
    try {
      ssh.upload(host.target(), etcdutl, copied.etcdutl());
      host.requireOk(
          ssh.exec(host.target(), "chmod 700 " + quote(copied.etcdutl()), TIMEOUT),
          "make " + copied.etcdutl() + " executable");
      return Optional.of(copied);
    } catch (RuntimeException e) {
      ssh.exec(host.target(), copied.removal(), TIMEOUT);
      throw e;
    }
  }

  static boolean leaves35(String running, String target) {
    return running.startsWith("3.5.") && minorOf(target) >= 6 && target.startsWith("3.");
  }

  private static int minorOf(String version) {
    String[] parts = version.split("\\.");
    try {
      return parts.length > 1 ? Integer.parseInt(parts[1]) : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** The failure's message, from the restart command's output. */
  static String refusal(MemberHost host, String target, String output) {
    return ("%s: `etcdutl check v2store` of the 3.5 release it ran did not come out clean on its"
            + " data dir, so etcd %s, which has no v2 store, was not started there; the member was"
            + " started again on the release it ran. The restart's output:\n%s\nNext: move the v2"
            + " data off (the MigrateV2ToV3 runbook for Kubernetes' keys,"
            + " docs/runbooks/migrate-v2-to-v3.md; delete others through the v2 API with"
            + " --enable-v2 on), then, as etcd's 3.6 upgrade guide says, restart each member once"
            + " with --snapshot-count=1 so that no v2 request is left in its WAL, and start the"
            + " upgrade again")
        .formatted(host.describe(), target, output.strip());
  }
}
