package io.etcdrunbooks.workflows.migrate;

import io.etcdrunbooks.workflows.activities.MigrationActivities.LeaseReport;
import java.util.List;
import java.util.Map;

/**
 * Outcome of a MigrateV2ToV3 runbook.
 *
 * @param migrationId in the names of the data dir copies
 * @param v2Keys keys the v2 store held before the migration ({@code v2KeysWithTtl} of them with a
 *     TTL)
 * @param v3KeysAfter keys in the v3 store at the end
 * @param leases the leases given to keys that had a TTL
 * @param dataDirCopies member -> its checked copy of the data dir from before the migration
 * @param apiServersSwitched control-plane hosts whose kube-apiserver now reads v3
 * @param v2KeysCleared keys deleted from the v2 store at the end
 * @param v2Untouched keys outside the kube-apiservers' --etcd-prefix per top-level prefix, left in
 *     the v2 store as they were (flannel's, Calico's)
 * @param dryRun nothing was touched
 */
public record MigrateResult(
    String cluster,
    String migrationId,
    long v2Keys,
    long v2KeysWithTtl,
    long v3KeysAfter,
    LeaseReport leases,
    Map<String, String> dataDirCopies,
    List<String> apiServersSwitched,
    long v2KeysCleared,
    Map<String, Long> v2Untouched,
    boolean dryRun) {}
