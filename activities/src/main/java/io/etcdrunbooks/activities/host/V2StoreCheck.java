package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import java.util.Optional;

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
