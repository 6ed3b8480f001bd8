package io.etcdrunbooks.workflows.downgrade;

import java.util.List;
import java.util.Map;

/**
 * Outcome of a DowngradeCluster runbook.
 *
 * @param cluster cluster name
 * @param toVersion the version every member runs now (or would, on a dry run)
 * @param membersToDowngrade the members switched (or to switch), in order, the leader last
 * @param memberVersions each member's server version at the end
 * @param clusterVersion cluster version at the end
 * @param storageVersion the storage version the members reported before the first was switched (""
 *     on a dry run or when there was nothing to switch)
 * @param dryRun nothing was touched
 */
public record DowngradeResult(
    String cluster,
    String toVersion,
    List<String> membersToDowngrade,
    Map<String, String> memberVersions,
    String clusterVersion,
    String storageVersion,
    boolean dryRun) {}
