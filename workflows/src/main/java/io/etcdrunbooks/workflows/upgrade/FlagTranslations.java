package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.model.EtcdVersion;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Flags a minor renamed, translated where a member's flags live before it starts on another
 * version: forwards when the target no longer takes the old name, backwards when it does not know
 * the new one yet (a rollback to 3.3). Checked against the real binaries' {@code --help} by
 * FlagTableAgainstBinariesTest: 3.3.25 has neither --log-level nor --log-outputs, 3.4.23 takes both
 * old and new names, 3.5.30 only the new ones (CHANGELOG-3.4.md, CHANGELOG-3.5.md).
 */
public final class FlagTranslations {

  /**
   * @param removedIn the first minor that refuses {@code oldFlag}
   * @param introducedIn the first minor that takes {@code newFlag}
   */
  public record Renamed(String removedIn, String introducedIn, String oldFlag, String newFlag) {}

  /** A flag as it should be given; {@code value} null for a flag given alone ({@code --debug}). */
  public record Flag(String name, String value) {
    public String asArgument() {
      return value == null ? name : name + "=" + value;
    }
  }

  static final List<Renamed> RENAMED =
      List.of(
          new Renamed("3.4", "3.0", "--ca-file", "--trusted-ca-file"),
          new Renamed("3.4", "3.0", "--peer-ca-file", "--peer-trusted-ca-file"),
          new Renamed("3.5", "3.4", "--log-output", "--log-outputs"),
          new Renamed("3.5", "3.4", "--debug", "--log-level"));

  private FlagTranslations() {}

  public static List<Renamed> renamed() {
    return RENAMED;
  }

  /**
   * What a flag becomes for a member about to run {@code target}: the same flag (empty answer),
   * another flag, or nothing at all ({@code Optional.of(null)} is never returned: a dropped flag is
   * {@link #DROPPED}).
   */
  public static Optional<Flag> translate(String name, String value, String target) {
    EtcdVersion to = EtcdVersion.parse(target);
    for (Renamed r : RENAMED) {
      if (r.oldFlag().equals(name) && !to.isBefore(minor(r.removedIn()))) {
        return Optional.of(forward(r, value));
      }
      if (r.newFlag().equals(name) && to.isBefore(minor(r.introducedIn()))) {
        return Optional.of(backward(r, value));
      }
    }
    return Optional.empty();
  }

  /** The answer for a flag that goes away: --debug=false needs no --log-level at all. */
  public static final Flag DROPPED = new Flag("", null);

  /** Whether {@link #translate} changes this flag for some target: it need not be refused. */
  public static boolean translatable(String name) {
    return RENAMED.stream().anyMatch(r -> r.oldFlag().equals(name));
  }

  private static Flag forward(Renamed r, String value) {
    if (r.oldFlag().equals("--debug")) {
      boolean on = value == null || value.isBlank() || value.equalsIgnoreCase("true");
      return on ? new Flag("--log-level", "debug") : DROPPED;
    }
    return new Flag(r.newFlag(), value);
  }

  private static Flag backward(Renamed r, String value) {
    if (r.newFlag().equals("--log-level")) {
      return "debug".equalsIgnoreCase(value) ? new Flag("--debug", "true") : DROPPED;
    }
    return new Flag(r.oldFlag(), value);
  }

  /** ETCD_LOG_LEVEL for --log-level. */
  public static String variable(String flag) {
    return "ETCD_" + flag.replaceFirst("^-+", "").replace('-', '_').toUpperCase(Locale.ROOT);
  }

  /** --log-level for ETCD_LOG_LEVEL. */
  public static String flag(String variable) {
    return "--" + variable.replaceFirst("^ETCD_", "").replace('_', '-').toLowerCase(Locale.ROOT);
  }

  private static EtcdVersion minor(String minor) {
    return EtcdVersion.parse(minor + ".0");
  }
}
