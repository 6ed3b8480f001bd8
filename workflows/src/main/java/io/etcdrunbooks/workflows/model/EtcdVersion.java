package io.etcdrunbooks.workflows.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Comparator;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An etcd release, major.minor.patch, parsed once: ordered, with its minor ("3.5") and etcd's rules
 * between releases as methods. On the wire (workflow histories, the API's JSON) it is the plain
 * string "3.5.30". Runbook requests keep their versions as strings, so that a bad one reaches the
 * preflight and is refused by name instead of failing the payload's decoding.
 */
public record EtcdVersion(int major, int minor, int patch) implements Comparable<EtcdVersion> {

  private static final Pattern FORM = Pattern.compile("(\\d{1,4})\\.(\\d{1,4})\\.(\\d{1,4})");
  private static final Comparator<EtcdVersion> ORDER =
      Comparator.comparingInt(EtcdVersion::major)
          .thenComparingInt(EtcdVersion::minor)
          .thenComparingInt(EtcdVersion::patch);

  /**
   * Learners (`member add --learner`, then `member promote`) came with etcd 3.4 (etcd's "Learner"
   * design doc, etcd.io/docs/v3.4/learning/design-learner; 3.4 allows one learner at a time).
   */
  private static final EtcdVersion FIRST_WITH_LEARNERS = new EtcdVersion(3, 4, 0);

  /**
   * etcdutl came with etcd 3.5, taking over `snapshot restore` and `snapshot status` from etcdctl
   * (etcd's CHANGELOG-3.5; its recovery guide restores with etcdutl from v3.5 on,
   * etcd.io/docs/v3.5/op-guide/recovery).
   */
  private static final EtcdVersion FIRST_WITH_ETCDUTL = new EtcdVersion(3, 5, 0);

  /** `etcdutl snapshot restore --bump-revision --mark-compacted` exists from 3.5.10 on. */
  private static final EtcdVersion FIRST_REVISION_BUMP = new EtcdVersion(3, 5, 10);

  /** Order of version strings; both must be versions. */
  public static final Comparator<String> STRING_ORDER = Comparator.comparing(EtcdVersion::parse);

  /** Whether the text is a major.minor.patch version. */
  public static boolean isVersion(String text) {
    return text != null && FORM.matcher(text).matches();
  }

  /** The version the text names, or IllegalArgumentException saying what is wrong. */
  @JsonCreator
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

  /**
   * The version an image tag names, as Kubernetes tags etcd's images: {@code 3.5.16-0}, {@code
   * v3.5.16}, {@code 3.5.16+build}; empty when the tag names none ({@code latest}).
   */
  public static Optional<EtcdVersion> ofImageTag(String tag) {
    String bare = tag.startsWith("v") ? tag.substring(1) : tag;
    int suffix = bare.replace('+', '-').indexOf('-');
    return find(suffix < 0 ? bare : bare.substring(0, suffix));
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

  /** Whether a member of this version can be added as a learner and promoted. */
  public boolean supportsLearners() {
    return !isBefore(FIRST_WITH_LEARNERS);
  }

  /** Whether this release ships etcdutl, the offline tool for snapshots and data directories. */
  public boolean shipsEtcdutl() {
    return !isBefore(FIRST_WITH_ETCDUTL);
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

  public boolean isAfter(EtcdVersion other) {
    return compareTo(other) > 0;
  }

  @Override
  public int compareTo(EtcdVersion other) {
    return ORDER.compare(this, other);
  }

  /** "3.5.30": the form on the wire and in every message. */
  @JsonValue
  @Override
  public String toString() {
    return major + "." + minor + "." + patch;
  }
}
