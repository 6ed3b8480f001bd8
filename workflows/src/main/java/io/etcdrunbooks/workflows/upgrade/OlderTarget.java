package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.model.EtcdVersion;

/**
 * The refusal of an upgrade whose target is older than what the cluster runs, naming the runbook
 * that goes back instead: from 3.6 on etcd downgrades online one minor at a time (DowngradeCluster,
 * nothing lost); before, or within a minor, going back is RollbackCluster's.
 */
public final class OlderTarget {

  private static final EtcdVersion FIRST_TO_DOWNGRADE = new EtcdVersion(3, 6, 0);

  private OlderTarget() {}

  /** Whether {@code target} is older than {@code running}, so an upgrade to it is refused. */
  public static boolean applies(EtcdVersion running, EtcdVersion target) {
    return target.isBefore(running);
  }

  /** The refusal for {@code cluster}'s upgrade from {@code running} back to {@code target}. */
  public static String refusal(String cluster, EtcdVersion running, EtcdVersion target) {
    return "target %s is older than the running %s: this runbook only upgrades; %s"
        .formatted(target, running, wayBack(cluster, running, target));
  }

  private static String wayBack(String cluster, EtcdVersion running, EtcdVersion target) {
    if (running.isBefore(FIRST_TO_DOWNGRADE)
        || running.major() != target.major()
        || running.sameMinor(target)) {
      return ("POST /api/v1/clusters/%s/rollback goes back (the RollbackCluster runbook; its"
              + " Temporal CLI recipe is in docs/temporal-cli.md#rollbackcluster)")
          .formatted(cluster);
    }
    int oneDown = running.minor() - 1;
    String first =
        target.minor() == oneDown
            ? ""
            : (" to %d.%d first (then again, down to %s)")
                .formatted(running.major(), oneDown, target);
    return ("etcd %s goes back online, one minor at a time, with the DowngradeCluster runbook%s:"
            + " POST /api/v1/clusters/%s/downgrade with {\"toVersion\": \"%s\"} (its Temporal"
            + " CLI recipe is in docs/temporal-cli.md#downgradecluster)")
        .formatted(
            running.minorLabel(),
            first,
            cluster,
            target.minor() == oneDown ? target : running.major() + "." + oneDown + ".x");
  }
}
