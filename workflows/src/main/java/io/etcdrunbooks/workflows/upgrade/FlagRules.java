package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.MemberFlags;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Command-line flags a new minor no longer accepts: etcd then refuses to start ("flag provided but
 * not defined"), so a member would go down mid-upgrade. Environment variables are left out: an
 * unknown {@code ETCD_*} variable is only a warning ("unrecognized environment variable"). From
 * etcd's changelogs (CHANGELOG-3.4.md, -3.5.md, -3.6.md) and upgrade guides (upgrade_3_5.md,
 * upgrade_3_6.md, upgrade_3_7.md). Every row, and 3.7's refusal of every --experimental-* flag, is
 * checked by FlagTableAgainstBinariesTest by starting the real binaries (3.3.25 to 3.7.3).
 */
public final class FlagRules {

  /** A flag the minor removed, and what replaces it ("" when nothing does). */
  public record Removed(String minor, String flag, String instead) {}

  private static final List<Removed> REMOVED =
      List.of(
          new Removed("3.4", "--ca-file", "--trusted-ca-file"),
          new Removed("3.4", "--peer-ca-file", "--peer-trusted-ca-file"),
          new Removed("3.5", "--debug", "--log-level=debug"),
          new Removed("3.5", "--log-package-levels", "--log-level"),
          new Removed("3.5", "--log-output", "--log-outputs"),
          new Removed("3.6", "--enable-v2", ""),
          new Removed("3.6", "--experimental-enable-v2v3", ""));

  private FlagRules() {}

  /** The table, for tests that hold it against real binaries. */
  public static List<Removed> removed() {
    return REMOVED;
  }

  /** One problem per member and flag that a minor on the ladder removes. */
  static List<String> problems(
      EtcdVersion running, List<EtcdVersion> ladder, List<MemberFlags> members) {
    List<String> problems = new ArrayList<>();
    List<String> minors = VersionLadder.minorsEntered(running, ladder);
    for (MemberFlags member : members) {
      for (String flag : member.flagNames()) {
        // renamed flags are translated where the member's flags live (FlagTranslations)
        if (FlagTranslations.translatable(flag)) continue;
        removal(minors, flag)
            .ifPresent(
                r ->
                    problems.add(
                        "member %s runs with %s, which etcd %s no longer accepts (it would not start) and the runbook cannot translate%s; change it where the member's flags live (unit, environment file or manifest) and try again"
                            .formatted(
                                member.member(),
                                flag,
                                r.minor(),
                                r.instead().isEmpty() ? "" : ": use " + r.instead())));
      }
    }
    return problems;
  }

  /** Whether a minor the ladder enters removes the flag (and {@link #problems} names it). */
  static boolean removes(EtcdVersion running, List<EtcdVersion> ladder, String flag) {
    return removal(VersionLadder.minorsEntered(running, ladder), flag).isPresent();
  }

  private static Optional<Removed> removal(List<String> minors, String flag) {
    if (minors.contains("3.7") && flag.startsWith("--experimental-")) {
      // 3.7 removes every --experimental-* flag in favour of feature gates and new names
      // (upgrade_3_7.md; etcd 3.7.3 server/embed/config.go defines none): FlagTranslations
      // rewrites those 3.6 maps, the rest are named here before any member changes
      return Optional.of(new Removed("3.7", flag, "its --feature-gates or non-experimental name"));
    }
    return REMOVED.stream()
        .filter(r -> r.flag().equals(flag) && minors.contains(r.minor()))
        .findFirst();
  }
}
