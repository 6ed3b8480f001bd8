package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.VersionOffer;
import io.etcdrunbooks.workflows.model.Versions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Plans the versions an upgrade goes through. etcd supports rolling upgrades one minor version at a
 * time, so: first the newest patch of the running minor (the etcd upgrade guides ask for it before
 * a minor jump), then each following minor at its newest patch on offer, and the target itself for
 * the last minor. Example with 3.3.25, 3.4.23, 3.5.16, 3.5.30 on offer: 3.3.25 -> 3.4.23 -> 3.5.30.
 */
public final class VersionLadder {

  /**
   * Minimum patch a cluster must run before it may enter a minor, from etcd's upgrade guides: 3.6
   * refuses to join a cluster whose members run a 3.5 older than 3.5.32 (and wants `etcdutl check
   * v2store` clean); 3.7 wants every member on 3.6.11 or later (etcd's 3.7 upgrade guide).
   */
  private static final Map<String, String> MINIMUM_BEFORE =
      Map.of("3.6", "3.5.32", "3.7", "3.6.11");

  private VersionLadder() {}

  /**
   * The versions to move to, in order (the running version excluded). Throws
   * IllegalArgumentException naming the problem.
   */
  public static List<String> plan(String running, String target, List<String> available) {
    return plan(running, target, VersionOffer.fromReleaseStore(available));
  }

  /** As {@link #plan(String, String, List)}, refusals naming where the versions come from. */
  public static List<String> plan(String running, String target, VersionOffer offer) {
    List<String> available = offer.versions();
    requireAnUpgrade(running, target, offer);
    int[] from = Versions.parts(running);
    int[] to = Versions.parts(target);
    List<String> ladder = new ArrayList<>();
    if (from[1] < to[1]) {
      newestPatch(available, from[0], from[1])
          .filter(v -> Versions.ORDER.compare(v, running) > 0)
          .ifPresent(ladder::add);
    }
    for (int minor = from[1] + 1; minor < to[1]; minor++) {
      String needed = from[0] + "." + minor;
      ladder.add(
          newestPatch(available, from[0], minor)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          ("no %s.x release is offered by %s (it has %s); etcd"
                                  + " upgrades one minor version at a time, so %s is needed on the"
                                  + " way to %s")
                              .formatted(
                                  needed, offer.source(), sorted(available), needed, target))));
    }
    ladder.add(target);
    requireMinimumBeforeMinor(running, ladder);
    return ladder;
  }

  /** Both are versions, the target is offered and newer than the running one, same major. */
  private static void requireAnUpgrade(String running, String target, VersionOffer offer) {
    requireVersion("running version", running);
    requireVersion("target version", target);
    if (!offer.versions().contains(target)) {
      throw new IllegalArgumentException(offer.whyNotOffered(target));
    }
    int cmp = Versions.ORDER.compare(target, running);
    if (cmp == 0) {
      throw new IllegalArgumentException(
          "the cluster already runs " + running + "; nothing to upgrade");
    }
    if (cmp < 0) {
      throw new IllegalArgumentException(
          "target %s is older than the running %s: this runbook only upgrades; use the rollback runbook to go back"
              .formatted(target, running));
    }
    if (Versions.parts(running)[0] != Versions.parts(target)[0]) {
      throw new IllegalArgumentException(
          "upgrading across major versions (" + running + " -> " + target + ") is not supported");
    }
  }

  /** The minors the ladder moves into after the running one, in order ("3.4", "3.5"). */
  static List<String> minorsEntered(String running, List<String> ladder) {
    List<String> minors = new ArrayList<>();
    EtcdVersion previous = EtcdVersion.parse(running);
    for (String step : ladder) {
      EtcdVersion next = EtcdVersion.parse(step);
      if (next.minorAbove(previous)) minors.add(next.minorLabel());
      previous = next;
    }
    return minors;
  }

  private static void requireMinimumBeforeMinor(String running, List<String> ladder) {
    String from = running;
    for (String to : ladder) {
      String minimum = MINIMUM_BEFORE.get(UpgradePlan.minorOf(to));
      if (minimum != null
          && !UpgradePlan.minorOf(from).equals(UpgradePlan.minorOf(to))
          && Versions.ORDER.compare(from, minimum) < 0) {
        throw new IllegalArgumentException(
            ("etcd %s needs every member on %s or later first, but the ladder reaches it from %s;"
                    + " offer %s or later in the binary source%s")
                .formatted(
                    UpgradePlan.minorOf(to),
                    minimum,
                    from,
                    minimum,
                    "3.6".equals(UpgradePlan.minorOf(to))
                        ? " (and check the v2 store with `etcdutl check v2store`)"
                        : ""));
      }
      from = to;
    }
  }

  private static Optional<String> newestPatch(List<String> available, int major, int minor) {
    return available.stream()
        .filter(v -> v.matches("\\d+\\.\\d+\\.\\d+"))
        .filter(v -> Versions.parts(v)[0] == major && Versions.parts(v)[1] == minor)
        .max(Versions.ORDER);
  }

  private static List<String> sorted(List<String> versions) {
    return versions.stream().sorted(Versions.ORDER).toList();
  }

  private static void requireVersion(String what, String v) {
    if (v == null || !v.matches("\\d+\\.\\d+\\.\\d+")) {
      throw new IllegalArgumentException(what + " must look like 3.5.30, got '" + v + "'");
    }
  }
}
