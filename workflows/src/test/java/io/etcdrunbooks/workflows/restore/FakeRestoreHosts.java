package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.activities.NewMemberActivities;
import io.etcdrunbooks.workflows.activities.RestoreActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.testing.UnsupportedApiServerActivities;
import io.etcdrunbooks.workflows.testing.UnsupportedInventoryActivities;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a restore needs besides a cluster ({@link io.etcdrunbooks.workflows.testing.FakeCluster} has
 * the members): the inventory, control-plane hosts whose kube-apiservers are stopped and started,
 * and kept backups restored on members. Faults are injected by host or member.
 */
public final class FakeRestoreHosts
    implements UnsupportedInventoryActivities,
        UnsupportedApiServerActivities,
        RestoreActivities,
        NewMemberActivities {

  private final List<String> members;
  private final List<String> controlPlane;
  private final Set<String> stopped = new LinkedHashSet<>();
  private final List<String> restored = new ArrayList<>();
  private final Map<String, String> restoreTools = new LinkedHashMap<>();
  private BackupRecord backup;
  private String backupProblem = "";
  private long lastSeen = 250;
  private boolean unknownCluster;
  private String apiServerStopFails = "";
  private String restoreFails = "";

  /** Control-plane host -> its controllers' manifests moved out of kubelet's directory. */
  private final Map<String, Set<String>> controllersOut = new LinkedHashMap<>();

  private final List<String> newHostProblems = new ArrayList<>();
  private boolean encryptionKeyMissing;
  private final List<String> encryptionConfigPutBack = new ArrayList<>();

  public FakeRestoreHosts(List<String> members, List<String> controlPlane) {
    this.members = List.copyOf(members);
    this.controlPlane = List.copyOf(controlPlane);
    this.backup = backup("b-1", "3.4.23", 10);
  }

  /**
   * A verified backup as the restore activities keep it (keys not counted: the key check is
   * skipped).
   */
  public static BackupRecord backup(String id, String etcdVersion, long revision) {
    return BackupRecord.builder()
        .id(id)
        .cluster("c")
        .member("m1")
        .etcdVersion(etcdVersion)
        .revision(revision)
        .hash(42)
        .keyCount(100)
        .sizeBytes(1024)
        .sha256("sha")
        .path("/backups/" + id)
        .takenAt("2026-01-01T00:00:00Z")
        .encrypted(true)
        .keyId("k")
        .liveKeys(0)
        .build();
  }

  /** The backup checkBackup finds (for any id asked for). */
  public synchronized FakeRestoreHosts keeps(BackupRecord kept) {
    backup = kept;
    return this;
  }

  /** checkBackup fails, as for a file that no longer matches its SHA-256. */
  public synchronized FakeRestoreHosts backupCorrupt(String problem) {
    backupProblem = problem;
    return this;
  }

  /** The inventory has no such cluster. */
  public synchronized FakeRestoreHosts unknownCluster() {
    unknownCluster = true;
    return this;
  }

  public synchronized FakeRestoreHosts apiServerStopFails(String host) {
    apiServerStopFails = host;
    return this;
  }

  public synchronized FakeRestoreHosts restoreFails(String member) {
    restoreFails = member;
    return this;
  }

  /**
   * The controllers' manifests on the host are out, as a crash between out and back leaves them.
   */
  public synchronized FakeRestoreHosts controllersLeftOut(String host) {
    controllersOut.put(host, new LinkedHashSet<>(controllers(host)));
    return this;
  }

  /** newHostProblems names this problem for every new host. */
  public synchronized FakeRestoreHosts newHostsTaken(String problem) {
    newHostProblems.add(problem);
    return this;
  }

  /** Control-plane host -> its controllers' manifests out of kubelet's directory now. */
  public synchronized Map<String, Set<String>> controllersOut() {
    Map<String, Set<String>> out = new LinkedHashMap<>();
    controllersOut.forEach((host, manifests) -> out.put(host, Set.copyOf(manifests)));
    return out;
  }

  private static List<String> controllers(String host) {
    return List.of(
        "/etc/kubernetes/manifests/kube-controller-manager.yaml",
        "/etc/kubernetes/manifests/kube-scheduler.yaml");
  }

  @Override
  public synchronized List<String> moveControllersOut(ControlPlaneRef host) {
    controllersOut
        .computeIfAbsent(host.host(), h -> new LinkedHashSet<>())
        .addAll(controllers(host.host()));
    return List.copyOf(controllersOut.get(host.host()));
  }

  @Override
  public synchronized List<String> putControllersBack(ControlPlaneRef host) {
    Set<String> out = controllersOut.remove(host.host());
    return out == null ? List.of() : List.copyOf(out);
  }

  @Override
  public synchronized List<String> newHostProblems(NewHostRequest request) {
    return List.copyOf(newHostProblems);
  }

  /** Control-plane hosts whose kube-apiserver is stopped now, in the order they were stopped. */
  public synchronized List<String> stoppedApiServers() {
    return List.copyOf(stopped);
  }

  /** Members restored so far, in order. */
  public synchronized List<String> restored() {
    return List.copyOf(restored);
  }

  @Override
  public synchronized List<MemberPlacement> members(ClusterRef ref) {
    if (unknownCluster)
      throw FailureType.UnknownCluster.nonRetryable(
          "no cluster '" + ref.cluster() + "' in the inventory");
    return members.stream()
        .map(
            m ->
                new MemberPlacement(
                    m,
                    m + ".example",
                    22,
                    "https://" + m + ":2380",
                    "https://" + m + ":2379",
                    "/var/lib/etcd-" + m,
                    "/opt/etcd",
                    "/srv/" + m))
        .toList();
  }

  @Override
  public void checkWritable(ClusterRef ref) {}

  @Override
  public List<String> controlPlaneHosts(ClusterRef ref) {
    return controlPlane;
  }

  @Override
  public synchronized boolean stopApiServer(ControlPlaneRef host) {
    if (host.host().equals(apiServerStopFails)) {
      throw ApplicationFailure.newNonRetryableFailure(
          "no manifest on " + host.host(), "ManifestMissing");
    }
    return stopped.add(host.host());
  }

  @Override
  public synchronized boolean startApiServer(ControlPlaneRef host) {
    return stopped.remove(host.host());
  }

  @Override
  public void awaitStopped(AwaitApiServerRequest request) {}

  @Override
  public synchronized void awaitHealthy(AwaitApiServerRequest request) {
    if (stopped.contains(request.host())) {
      throw ApplicationFailure.newNonRetryableFailure(
          request.host() + " is stopped", "ApiServerNotHealthy");
    }
  }

  @Override
  public synchronized BackupRecord checkBackup(CheckBackupRequest request) {
    if (!backupProblem.isEmpty()) throw FailureType.BackupCorrupt.nonRetryable(backupProblem);
    return backup;
  }

  @Override
  public synchronized long lastSeenRevision(ClusterRef ref) {
    return lastSeen;
  }

  @Override
  public String keepDataDirAside(MemberRestoreRequest request) {
    return "/var/lib/etcd-" + request.member() + ".before-restore-" + request.restoreId();
  }

  @Override
  public synchronized long restoreMember(RestoreMemberRequest request) {
    if (request.member().equals(restoreFails)) {
      throw ApplicationFailure.newNonRetryableFailure(
          "etcdutl snapshot restore failed on " + request.member(), "RestoreToolFailed");
    }
    restored.add(request.member());
    restoreTools.put(request.member(), request.toolVersion());
    return 0;
  }

  /** The toolVersion each member was restored with ("": its own). */
  public synchronized Map<String, String> restoreTools() {
    return Map.copyOf(restoreTools);
  }

  /** cp2's EncryptionConfiguration lacks a key the backup recorded. */
  public synchronized FakeRestoreHosts encryptionKeyMissingOnCp2() {
    encryptionKeyMissing = true;
    return this;
  }

  /** Hosts the backup's EncryptionConfiguration was put back on, in order. */
  public synchronized List<String> encryptionConfigPutBack() {
    return List.copyOf(encryptionConfigPutBack);
  }

  @Override
  public synchronized List<String> encryptionConfigProblems(EncryptionConfigRequest request) {
    if (!encryptionKeyMissing || request.putBack()) return List.of();
    return List.of(
        "cp2: the kube-apiserver's EncryptionConfiguration /etc/kubernetes/enc.yaml lacks the keys"
            + " [aescbc/key1]");
  }

  @Override
  public synchronized boolean putBackEncryptionConfig(PutBackEncryptionConfigRequest request) {
    if (!encryptionKeyMissing || !request.host().equals("cp2")) return false;
    encryptionConfigPutBack.add(request.host() + (stopped.contains("cp2") ? " (stopped)" : ""));
    return true;
  }

  @Override
  public void checkHost(NewMemberRequest request) {}

  @Override
  public void checkPlacement(PlacementRequest request) {}

  @Override
  public void prepare(PrepareRequest request) {
    throw new UnsupportedOperationException("NewMemberActivities.prepare is not faked here");
  }

  @Override
  public void start(NewMemberRequest request) {
    throw new UnsupportedOperationException("NewMemberActivities.start is not faked here");
  }

  @Override
  public void discard(NewMemberRequest request) {}

  @Override
  public String logTail(NewMemberRequest request) {
    return "";
  }
}
