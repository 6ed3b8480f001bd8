package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.model.BackupRecord;
import java.util.List;
import java.util.Map;

/**
 * Outcome of a RestoreCluster runbook.
 *
 * @param cluster cluster name
 * @param backup the backup restored (or that would be, on a dry run)
 * @param restoreId id of this restore: in the new cluster token and the names of the data dirs kept
 *     aside
 * @param lastSeenRevision highest revision a member reported before the restore (0: none answered)
 * @param lostRevisions what the restore lost, for example "revisions 1201..1450 (250)", "none", or
 *     "unknown: ..."
 * @param revisionBump how much the revision was raised so that watchers never see it go backwards
 *     (0: none)
 * @param revisionAfter the cluster's revision after the restore
 * @param liveKeysAfter keys alive after the restore (equal to the backup's)
 * @param memberVersions each member's server version at the end
 * @param dataDirsKeptAside member -> where its data dir from before the restore is kept ("" when it
 *     had none)
 * @param apiServersRestarted control-plane hosts whose kube-apiserver was stopped and started again
 * @param dryRun nothing was touched
 * @param oldMembersLeftRunning a restore onto new hosts: the old members, still running and
 *     untouched, that the operator must stop and fence (they hold the cluster's old data and
 *     membership); empty for a restore in place
 * @param controllersRestarted "cp1: /etc/kubernetes/manifests/kube-scheduler.yaml" for each
 *     kube-controller-manager and kube-scheduler manifest moved out and back
 * @param kubeletsToRestart the kubelets the operator should restart so that node components list
 *     the restored state again (control-plane hosts, then "every worker node")
 */
public record RestoreResult(
    String cluster,
    BackupRecord backup,
    String restoreId,
    long lastSeenRevision,
    String lostRevisions,
    long revisionBump,
    long revisionAfter,
    long liveKeysAfter,
    Map<String, String> memberVersions,
    Map<String, String> dataDirsKeptAside,
    List<String> apiServersRestarted,
    boolean dryRun,
    List<String> oldMembersLeftRunning,
    List<String> controllersRestarted,
    List<String> kubeletsToRestart,
    List<String> encryptionConfigPutBack) {}
