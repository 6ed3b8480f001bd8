package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import java.util.List;

/**
 * Input of the RestoreCluster runbook, one JSON object so the Temporal Web UI can start it: {@code
 * {"cluster":"prod-1","backupId":"latest","acknowledgeDataLoss":true}}.
 *
 * @param cluster inventory name of the cluster
 * @param backupId the backup to restore; empty or "latest": the newest kept backup whose file is
 *     whole
 * @param acknowledgeDataLoss must be true: every write after the backup is lost, and the runbook
 *     refuses without it
 * @param etcdVersion version every member runs after the restore; empty: the version installed on
 *     each member
 * @param dryRun check the backup and the hosts, plan, touch nothing
 * @param memberTimeoutSeconds how long the restored members may take to be healthy (0: 300 s)
 * @param apiServerTimeoutSeconds how long each kube-apiserver may take to go and to come back (0:
 *     300 s)
 * @param takenOnMinor with backupId "latest": the newest backup taken on this minor version, for
 *     example 3.4 (empty: any)
 * @param requireApproval stop after preflight until an operator approves, before anything is
 *     stopped
 * @param acknowledgeRevisionsBackward restore even when no tool that raises the revision can be had
 *     (etcdutl 3.5.10 or later): the revision then goes back to the backup's, and every watcher
 *     holding a newer resourceVersion misses events until it relists
 * @param newMembers restore onto these hosts as a new cluster instead of onto the inventory's
 *     members (empty or null: in place); the inventory and every kube-apiserver's --etcd-servers
 *     then point at them, and the old members are left running, untouched, for the operator to
 *     stop. Paths left empty are taken from the inventory member at the same position (or the
 *     first)
 * @param putBackEncryptionConfig when a control-plane host's kube-apiserver EncryptionConfiguration
 *     lacks keys the backup recorded, put the backup's kept copy there before the apiservers start
 *     (false: refuse, naming host, file and keys)
 * @param controllersOutSeconds how long kube-controller-manager's and kube-scheduler's manifests
 *     stay out of kubelet's directory after the restore (0: 25 s; kubelet notices a manifest gone
 *     at its next file check, every 20 s by default)
 */
public record RestoreRequest(
    String cluster,
    String backupId,
    boolean acknowledgeDataLoss,
    String etcdVersion,
    boolean dryRun,
    int memberTimeoutSeconds,
    int apiServerTimeoutSeconds,
    String takenOnMinor,
    boolean requireApproval,
    boolean acknowledgeRevisionsBackward,
    List<MemberPlacement> newMembers,
    boolean putBackEncryptionConfig,
    int controllersOutSeconds) {

  public RestoreRequest {
    newMembers = newMembers == null ? List.of() : List.copyOf(newMembers);
  }

  /**
   * A restore of the backup onto the backup's own etcd version; loses data only once acknowledged.
   */
  public static RestoreRequest of(String cluster, String backupId, RunbookOptions options) {
    return new Builder()
        .cluster(cluster)
        .backupId(backupId)
        .dryRun(options.dryRun())
        .memberTimeoutSeconds(options.memberTimeoutSeconds())
        .apiServerTimeoutSeconds(options.apiServerTimeoutSeconds())
        .requireApproval(options.requireApproval())
        .build();
  }

  /** Every write since the backup is lost: a restore runs only with this. */
  public RestoreRequest acknowledgingDataLoss() {
    return withDataLossAcknowledged(true);
  }

  public RestoreRequest withDataLossAcknowledged(boolean acknowledged) {
    return toBuilder().acknowledgeDataLoss(acknowledged).build();
  }

  /** The etcd version to run after the restore (null: the backup's). */
  public RestoreRequest withEtcdVersion(String version) {
    return toBuilder().etcdVersion(version).build();
  }

  /** The minor the backup was taken on, when the caller knows it (a rollback does). */
  public RestoreRequest withTakenOnMinor(String minor) {
    return toBuilder().takenOnMinor(minor).build();
  }

  /** The revision may go back to the backup's when no tool can raise it. */
  public RestoreRequest withRevisionsBackwardAcknowledged(boolean acknowledged) {
    return toBuilder().acknowledgeRevisionsBackward(acknowledged).build();
  }

  /** Restores onto these hosts as a new cluster; empty: in place. */
  public RestoreRequest withNewMembers(List<MemberPlacement> members) {
    return toBuilder().newMembers(members).build();
  }

  /** Puts the backup's EncryptionConfiguration back where a host's lacks its keys. */
  public RestoreRequest withEncryptionConfigPutBack(boolean putBack) {
    return toBuilder().putBackEncryptionConfig(putBack).build();
  }

  /** How long the controllers' manifests stay out (0: 25 s). */
  public RestoreRequest withControllersOutSeconds(int seconds) {
    return toBuilder().controllersOutSeconds(seconds).build();
  }

  /** A builder holding this request's fields: each wither names the one it changes. */
  private Builder toBuilder() {
    return new Builder()
        .cluster(cluster)
        .backupId(backupId)
        .acknowledgeDataLoss(acknowledgeDataLoss)
        .etcdVersion(etcdVersion)
        .dryRun(dryRun)
        .memberTimeoutSeconds(memberTimeoutSeconds)
        .apiServerTimeoutSeconds(apiServerTimeoutSeconds)
        .takenOnMinor(takenOnMinor)
        .requireApproval(requireApproval)
        .acknowledgeRevisionsBackward(acknowledgeRevisionsBackward)
        .newMembers(newMembers)
        .putBackEncryptionConfig(putBackEncryptionConfig)
        .controllersOutSeconds(controllersOutSeconds);
  }

  /** Sets a request's fields by name; what is not set is as {@link #of} leaves it. */
  private static final class Builder {
    private String cluster;
    private String backupId;
    private boolean acknowledgeDataLoss;
    private String etcdVersion;
    private boolean dryRun;
    private int memberTimeoutSeconds;
    private int apiServerTimeoutSeconds;
    private String takenOnMinor = "";
    private boolean requireApproval;
    private boolean acknowledgeRevisionsBackward;
    private List<MemberPlacement> newMembers = List.of();
    private boolean putBackEncryptionConfig;
    private int controllersOutSeconds;

    Builder cluster(String cluster) {
      this.cluster = cluster;
      return this;
    }

    Builder backupId(String backupId) {
      this.backupId = backupId;
      return this;
    }

    Builder acknowledgeDataLoss(boolean acknowledgeDataLoss) {
      this.acknowledgeDataLoss = acknowledgeDataLoss;
      return this;
    }

    Builder etcdVersion(String etcdVersion) {
      this.etcdVersion = etcdVersion;
      return this;
    }

    Builder dryRun(boolean dryRun) {
      this.dryRun = dryRun;
      return this;
    }

    Builder memberTimeoutSeconds(int memberTimeoutSeconds) {
      this.memberTimeoutSeconds = memberTimeoutSeconds;
      return this;
    }

    Builder apiServerTimeoutSeconds(int apiServerTimeoutSeconds) {
      this.apiServerTimeoutSeconds = apiServerTimeoutSeconds;
      return this;
    }

    Builder takenOnMinor(String takenOnMinor) {
      this.takenOnMinor = takenOnMinor;
      return this;
    }

    Builder requireApproval(boolean requireApproval) {
      this.requireApproval = requireApproval;
      return this;
    }

    Builder acknowledgeRevisionsBackward(boolean acknowledgeRevisionsBackward) {
      this.acknowledgeRevisionsBackward = acknowledgeRevisionsBackward;
      return this;
    }

    Builder newMembers(List<MemberPlacement> newMembers) {
      this.newMembers = newMembers;
      return this;
    }

    Builder putBackEncryptionConfig(boolean putBackEncryptionConfig) {
      this.putBackEncryptionConfig = putBackEncryptionConfig;
      return this;
    }

    Builder controllersOutSeconds(int controllersOutSeconds) {
      this.controllersOutSeconds = controllersOutSeconds;
      return this;
    }

    RestoreRequest build() {
      return new RestoreRequest(
          cluster,
          backupId,
          acknowledgeDataLoss,
          etcdVersion,
          dryRun,
          memberTimeoutSeconds,
          apiServerTimeoutSeconds,
          takenOnMinor,
          requireApproval,
          acknowledgeRevisionsBackward,
          newMembers,
          putBackEncryptionConfig,
          controllersOutSeconds);
    }
  }

  public int effectiveControllersOutSeconds() {
    return controllersOutSeconds > 0 ? controllersOutSeconds : 25;
  }

  /** Whether the backup goes onto new hosts rather than the inventory's members. */
  public boolean ontoNewHosts() {
    return !newMembers.isEmpty();
  }

  public RunbookOptions options() {
    return new RunbookOptions(
        dryRun, requireApproval, memberTimeoutSeconds, apiServerTimeoutSeconds);
  }

  public int effectiveMemberTimeoutSeconds() {
    return memberTimeoutSeconds > 0 ? memberTimeoutSeconds : 300;
  }

  public int effectiveApiServerTimeoutSeconds() {
    return apiServerTimeoutSeconds > 0 ? apiServerTimeoutSeconds : 300;
  }
}
