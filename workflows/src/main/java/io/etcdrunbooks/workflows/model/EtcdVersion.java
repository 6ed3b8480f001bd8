package io.etcdrunbooks.workflows.model;

import java.util.Comparator;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An etcd release, major.minor.patch, parsed once: ordered, with its minor ("3.5") and the rules
 * that hold between minors. Payloads keep versions as strings (what the Web UI and the API send);
 * code that compares or plans turns them into this first.
 */
public record EtcdVersion(int major, int minor, int patch) implements Comparable<EtcdVersion> {

  private static final Pattern FORM = Pattern.compile("(\\d{1,4})\\.(\\d{1,4})\\.(\\d{1,4})");
  private static final Comparator<EtcdVersion> ORDER =
      Comparator.comparingInt(EtcdVersion::major)
          .thenComparingInt(EtcdVersion::minor)
          .thenComparingInt(EtcdVersion::patch);

  /** Order of version strings; both must be versions. */
  private static final EtcdVersion FIRST_REVISION_BUMP = new EtcdVersion(3, 5, 10);

  public static final Comparator<String> STRING_ORDER = Comparator.comparing(EtcdVersion::parse);

  /** Whether the text is a major.minor.patch version. */
  public static boolean isVersion(String text) {
    return text != null && FORM.matcher(text).matches();
  }

  /** The version the text names, or IllegalArgumentException saying what is wrong. */
  public static EtcdVersion parse(String text) {
    return parse("version", text);
  }

  /**
   * @param what the field or role of the text, for the message ("targetVersion", "running version")
   */
  public static EtcdVersion parse(String what, String text) {
    Matcher m = text == null ? null : FORM.matcher(text);
    if (m == null || !m.matches()) {
      throw new IllegalArgumentException(what + " must look like 3.5.30, got '" + text + "'");
    }
    return new EtcdVersion(
        Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)));
  }

  /** The version in the text, empty when it is none (a cluster version not yet known, say). */
  public static Optional<EtcdVersion> find(String text) {
    return isVersion(text) ? Optional.of(parse(text)) : Optional.empty();
  }

  /** "3.5" of 3.5.30. */
  public String minorLabel() {
    return major + "." + minor;
  }

  /** Whether the two are releases of one minor (3.5.16 and 3.5.30). */
  public boolean sameMinor(EtcdVersion other) {
    return major == other.major && minor == other.minor;
  }

  /** Whether this one's minor is later than the other's (3.5.0 against 3.4.23). */
  public boolean minorAbove(EtcdVersion other) {
    return major > other.major || (major == other.major && minor > other.minor);
  }

  /**
   * Whether this version's restore tool raises the revision ({@code etcdutl snapshot restore
   * --bump-revision --mark-compacted}, from 3.5.10 on), so that no watcher sees it go back.
   */
  public boolean restoresWithRevisionBump() {
    return !isBefore(FIRST_REVISION_BUMP);
  }

  public boolean isBefore(EtcdVersion other) {
    return compareTo(other) < 0;
  }

  @Override
  public int compareTo(EtcdVersion other) {
    return ORDER.compare(this, other);
  }

  @Override
  public String toString() {
    return major + "." + minor + "." + patch;
  }
}
