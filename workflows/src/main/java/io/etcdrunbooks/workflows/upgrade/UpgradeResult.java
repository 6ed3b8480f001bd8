package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.common.MemberDownTime;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.KeyspaceDigest;
import java.util.List;
import java.util.Map;

/**
 * Outcome of an UpgradeCluster runbook.
 *
 * @param cluster cluster name
 * @param dryRun nothing was touched; {@code plan} is what would be done
 * @param plan the ladder, members in order
 * @param backup the verified pre-upgrade backup (null on a dry run)
 * @param memberVersions each member's server version at the end
 * @param clusterVersion cluster version at the end
 * @param keyspaceBefore checksum of every key at the backup's revision, before the first member was
 *     touched
 * @param keyspaceAfter the same checksum, read again after the last member
 * @param restartedMembers members that were actually restarted, per ladder step label
 * @param notes warnings worth reading (for example a keyspace check skipped because of compaction)
 * @param memberDownTimes each member restart's down time, stopped until ready, in order
 */
public record UpgradeResult(
    String cluster,
    boolean dryRun,
    UpgradePlan plan,
    BackupRecord backup,
    Map<String, String> memberVersions,
    String clusterVersion,
    KeyspaceDigest keyspaceBefore,
    KeyspaceDigest keyspaceAfter,
    Map<String, List<String>> restartedMembers,
    List<String> notes,
    List<MemberDownTime> memberDownTimes) {}
