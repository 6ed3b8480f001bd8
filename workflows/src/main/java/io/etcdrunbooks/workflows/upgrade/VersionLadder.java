package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.VersionOffer;
import java.util.ArrayList;
import java.util.Comparator;
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
  private static final Map<String, EtcdVersion> MINIMUM_BEFORE =
      Map.of("3.6", new EtcdVersion(3, 5, 32), "3.7", new EtcdVersion(3, 6, 11));

  private VersionLadder() {}

  /** The patch every member must run before the cluster enters {@code minor} ("3.6"), if any. */
  static Optional<EtcdVersion> minimumBefore(String minor) {
    return Optional.ofNullable(MINIMUM_BEFORE.get(minor));
  }

  /**
   * The versions to move to, in order (the running version excluded). Throws
   * IllegalArgumentException naming the problem.
   */
  public static List<EtcdVersion> plan(
      EtcdVersion running, EtcdVersion target, List<String> available) {
    return plan(running, target, VersionOffer.fromReleaseStore(available));
  }

  /** As {@link #plan(EtcdVersion, EtcdVersion, List)}, refusals naming where versions come from. */
  public static List<EtcdVersion> plan(
      EtcdVersion running, EtcdVersion target, VersionOffer offer) {
    List<EtcdVersion> available =
        offer.versions().stream().flatMap(v -> EtcdVersion.find(v).stream()).sorted().toList();
    requireAnUpgrade(running, target, offer);
    List<EtcdVersion> ladder = new ArrayList<>();
    if (target.minorAbove(running)) {
      newestPatch(available, running.major(), running.minor())
          .filter(v -> v.isAfter(running))
          .ifPresent(ladder::add);
    }
    for (int minor = running.minor() + 1; minor < target.minor(); minor++) {
      String needed = running.major() + "." + minor;
      ladder.add(
          newestPatch(available, running.major(), minor)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          ("no %s.x release is offered by %s (it has %s); etcd"
                                  + " upgrades one minor version at a time, so %s is needed on the"
                                  + " way to %s")
                              .formatted(needed, offer.source(), available, needed, target))));
    }
    ladder.add(target);
    requireMinimumBeforeMinor(running, ladder);
    return ladder;
  }

  /** The target is offered and newer than the running one, same major. */
  private static void requireAnUpgrade(
      EtcdVersion running, EtcdVersion target, VersionOffer offer) {
    if (!offer.versions().contains(target.toString())) {
      throw new IllegalArgumentException(offer.whyNotOffered(target.toString()));
    }
    if (target.equals(running)) {
      throw new IllegalArgumentException(
          "the cluster already runs " + running + "; nothing to upgrade");
    }
    if (target.isBefore(running)) {
      throw new IllegalArgumentException(
          ("target %s is older than the running %s: this runbook only upgrades; the"
                  + " DowngradeCluster runbook (from 3.6 on) or RollbackCluster goes back")
              .formatted(target, running));
    }
    if (running.major() != target.major()) {
      throw new IllegalArgumentException(
          "upgrading across major versions (" + running + " -> " + target + ") is not supported");
    }
  }

  /** The minors the ladder moves into after the running one, in order ("3.4", "3.5"). */
  static List<String> minorsEntered(EtcdVersion running, List<EtcdVersion> ladder) {
    List<String> minors = new ArrayList<>();
    EtcdVersion previous = running;
    for (EtcdVersion next : ladder) {
      if (next.minorAbove(previous)) minors.add(next.minorLabel());
      previous = next;
    }
    return minors;
  }

  private static void requireMinimumBeforeMinor(EtcdVersion running, List<EtcdVersion> ladder) {
    EtcdVersion from = running;
    for (EtcdVersion to : ladder) {
      EtcdVersion minimum = MINIMUM_BEFORE.get(to.minorLabel());
      if (minimum != null && !from.sameMinor(to) && from.isBefore(minimum)) {
        throw new IllegalArgumentException(
            ("etcd %s needs every member on %s or later first, but the ladder reaches it from %s;"
                    + " offer %s or later in the binary source%s")
                .formatted(
                    to.minorLabel(),
                    minimum,
                    from,
                    minimum,
                    "3.6".equals(to.minorLabel())
                        ? " (and check the v2 store with `etcdutl check v2store`)"
                        : ""));
      }
      from = to;
    }
  }

  private static Optional<EtcdVersion> newestPatch(
      List<EtcdVersion> available, int major, int minor) {
    return available.stream()
        .filter(v -> v.major() == major && v.minor() == minor)
        .max(Comparator.naturalOrder());
  }
}
