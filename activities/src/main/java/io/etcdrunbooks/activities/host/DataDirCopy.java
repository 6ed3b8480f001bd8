package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

/**
 * A stopped member's data dir copied beside it and checked file by file (SHA-256 of every file on
 * both sides), the way back of a runbook that changes the data dir itself (migration, forced new
 * cluster). A copy already checked is kept; one an interrupted call left unchecked is made again.
 */
public final class DataDirCopy {

  private DataDirCopy() {}

  /**
   * Copies the data dir to {@code copy} unless a checked copy is there.
   *
   * @return true when it copied now, false when a checked copy was there already
   */
  public static boolean copy(MemberShell member, String copy) {
    String data = member.dataDir();
    String checked = copy + ".checked";
    String out =
        member
            .run(
                "set -e\n"
                    + ("if [ -f %s ]; then echo already; exit 0; fi\n"
                            + "[ -d %s/member ] || { echo 'no member directory in the data dir %s'"
                            + " >&2; exit 3; }\n"
                            + "rm -rf %s\n"
                            + "cp -a %s %s\n"
                            + "sums() { (cd \"$1\" && find . -type f -print0 | sort -z | xargs -0 -r"
                            + " sha256sum | sha256sum); }\n"
                            + "a=$(sums %s); b=$(sums %s)\n"
                            + "[ \"$a\" = \"$b\" ] || { echo 'the copy differs from the data dir'"
                            + " >&2; exit 4; }\n"
                            + "echo \"$a\" > %s.tmp && mv %s.tmp %s\n"
                            + "echo copied\n")
                        .formatted(
                            quote(checked),
                            quote(data),
                            data,
                            quote(copy),
                            quote(data),
                            quote(copy),
                            quote(data),
                            quote(copy),
                            quote(checked),
                            quote(checked),
                            quote(checked)),
                "copy the data dir " + data + " to " + copy)
            .stdout()
            .strip();
    return !out.equals("already");
  }
}
