package io.etcdrunbooks.activities.migrate;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.host.MemberShell;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.temporal.failure.ApplicationFailure;

/**
 * The v3 store {@code etcdctl migrate} made on the member stopped first, copied over another
 * stopped member's ({@code member/snap/db}), so that every member starts from one v3 store.
 *
 * <p>Why not migrate each member: while v2 keys with a TTL exist the leader proposes v2 SYNCs that
 * expire them, and flannel or Calico keep writing v2; members stopped one after another hold WALs
 * of different lengths, and {@code etcdctl migrate} replays each to its end, so the members' v3
 * stores (keys and revisions) differ and stay different. The member stopped first holds the
 * shortest log, every entry of which the others hold too and commit: given its store, each other
 * member skips the entries up to its consistent index for v3 and applies the rest (v2 only: the
 * kube-apiservers are stopped) to its own v2 store, as it would after a restart.
 */
final class V3StoreCopy {

  private V3StoreCopy() {}

  /** Returns false, touching nothing, when the member's store is that copy already. */
  static boolean copy(MemberShell from, MemberShell to, SshConnector ssh, String migrationId) {
    String marker = to.dataDir() + ".migrated-" + migrationId;
    if (exists(to, marker)) return false;
    if (!exists(from, from.dataDir() + ".migrated-" + migrationId)) {
      throw ApplicationFailure.newNonRetryableFailure(
          from.host().describe()
              + " is not migrated yet, so there is no v3 store to copy to "
              + to.host().describe()
              + "; let the runbook run from its start",
          "MigrationOutOfOrder");
    }
    String source = from.stagingDir() + "/db";
    String sha =
        from.run(
                ("set -e\ncp %s %s\nchown %s %s\nsha256sum %s | cut -d' ' -f1\n")
                    .formatted(
                        quote(from.dataDir() + "/member/snap/db"),
                        quote(source),
                        quote(from.host().target().user()),
                        quote(source),
                        quote(source)),
                "take a copy of the migrated v3 store")
            .stdout()
            .strip();
    String received = to.stagingDir() + "/db";
    ssh.transfer(
        from.host().target(),
        source,
        to.host().target(),
        received,
        copied -> Heartbeats.beat(copied + " bytes of the v3 store copied to " + to.dataDir()));
    String db = to.dataDir() + "/member/snap/db";
    to.run(
        ("set -e\n"
                + "[ \"$(sha256sum %1$s | cut -d' ' -f1)\" = %2$s ] || { echo 'the copy of the v3"
                + " store differs from its source' >&2; exit 6; }\n"
                + "[ -f %3$s ] || { echo 'no v3 store at %3$s' >&2; exit 5; }\n"
                + "cp %1$s %3$s.etcd-runbooks.tmp\n"
                + "chown --reference=%3$s %3$s.etcd-runbooks.tmp\n"
                + "chmod --reference=%3$s %3$s.etcd-runbooks.tmp\n"
                + "sync %3$s.etcd-runbooks.tmp\n"
                + "mv -f %3$s.etcd-runbooks.tmp %3$s\n"
                // written then renamed: a marker cut short by a full disk must not say "done"
                + "echo %4$s > %5$s.tmp && mv %5$s.tmp %5$s\n")
            .formatted(
                quote(received),
                quote(sha),
                quote(db),
                quote("v3 store of " + from.host().member().name()),
                quote(marker)),
        "put the v3 store of " + from.host().member().name() + " in place");
    return true;
  }

  private static boolean exists(MemberShell member, String path) {
    return member
        .run("[ -f " + quote(path) + " ] && echo yes || true", "look for " + path)
        .stdout()
        .strip()
        .equals("yes");
  }
}
