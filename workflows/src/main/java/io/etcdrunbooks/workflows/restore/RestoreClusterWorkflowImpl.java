package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.activities.ApiServerActivities.AwaitApiServerRequest;
import io.etcdrunbooks.workflows.activities.ApiServerActivities.ControlPlaneRef;
import io.etcdrunbooks.workflows.activities.EtcdActivities.AwaitClusterVersionRequest;
import io.etcdrunbooks.workflows.activities.EtcdActivities.AwaitMemberRequest;
import io.etcdrunbooks.workflows.activities.EtcdActivities.KeyspaceDigestRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.InstallRequest;
import io.etcdrunbooks.workflows.activities.RestoreActivities.CheckBackupRequest;
import io.etcdrunbooks.workflows.activities.RestoreActivities.MemberRestoreRequest;
import io.etcdrunbooks.workflows.activities.RestoreActivities.RestoreMemberRequest;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.ConsistencyReport;
import io.etcdrunbooks.workflows.model.KeyspaceDigest;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.model.Versions;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.HostAccessPreflight;
import io.etcdrunbooks.workflows.phases.ClusterChecks;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

public final class RestoreClusterWorkflowImpl extends RunbookWorkflow implements RestoreClusterWorkflow {

  private final Activities activities = new Activities();
  private final Map<String, String> keptAside = new LinkedHashMap<>();
  private final List<String> apiServersStopped = new ArrayList<>();

  public RestoreClusterWorkflowImpl() {
    super(TYPE);
  }

  @Override
  public RestoreResult restore(RestoreRequest request) {
    return runChange(request.cluster(), request.dryRun(), () -> run(request));
  }

  private RestoreResult run(RestoreRequest request) {
    String cluster = request.cluster();
    ClusterRef ref = new ClusterRef(cluster);
    if (!request.acknowledgeDataLoss()) {
      throw refuse(cluster, List.of("acknowledgeDataLoss must be true: a restore replaces the cluster's data with the backup's,"
          + " and every write made after the backup is lost"));
    }
    String target = request.etcdVersion() == null ? "" : request.etcdVersion().strip();
    if (!target.isEmpty() && !target.matches("\\d+\\.\\d+\\.\\d+")) {
      throw refuse(cluster, List.of("etcdVersion must look like 3.4.23 (or be left out), got '" + target + "'"));
    }
    String restoreId = "r" + Workflow.getInfo().getRunId().substring(0, 8);

    progress.phase(Phase.DISCOVER);
    List<MemberPlacement> members;
    try {
      members = progress.record("inventory", () -> activities.inventory.members(ref));
    } catch (ActivityFailure e) {
      throw refuse(cluster, List.of(Failures.rootMessage(e)));
    }
    List<String> controlPlane = activities.apiServer.controlPlaneHosts(ref);
    long lastSeen = progress.record("last revision the members report", () -> activities.restore.lastSeenRevision(ref));

    progress.phase(Phase.PREFLIGHT);
    List<String> problems = new ArrayList<>();
    BackupRecord backup = null;
    try {
      backup = progress.record("backup " + (blank(request.backupId()) ? "latest" : request.backupId()) + " decrypts and verifies",
          () -> activities.restore.checkBackup(new CheckBackupRequest(cluster, request.backupId(), request.takenOnMinor())));
    } catch (ActivityFailure e) {
      problems.add(Failures.rootMessage(e));
    }
    Map<String, String> versions = new LinkedHashMap<>();
    for (MemberPlacement m : members) {
      try {
        versions.put(m.name(), progress.record(m.name() + ": installed etcd",
            () -> activities.host.installedVersion(new MemberRef(cluster, m.name()))));
      } catch (ActivityFailure e) {
        problems.add("member " + m.name() + ": " + Failures.rootMessage(e));
      }
    }
    if (!target.isEmpty()) {
      List<String> available = activities.releases.availableVersions(ref);
      if (!available.contains(target)) problems.add("etcd " + target + " is not offered by the binary source (it has " + available + ")");
      members.forEach(m -> versions.put(m.name(), target));
    }
    if (backup != null) {
      for (Map.Entry<String, String> v : versions.entrySet()) {
        if (!v.getValue().isEmpty() && olderMinor(v.getValue(), backup.etcdVersion())) {
          problems.add("member " + v.getKey() + " would run etcd " + v.getValue() + ", older than the " + backup.etcdVersion()
              + " that took backup " + backup.id() + ": an older minor version cannot run newer data");
        }
      }
    }
    problems.addAll(HostAccessPreflight.problems(activities, progress, cluster, List.of(), true));
    if (!problems.isEmpty()) throw refuse(cluster, problems);
    BackupRecord chosen = backup;

    progress.phase(Phase.PLAN);
    String lost = lostRevisions(chosen, lastSeen);
    progress.message("restore backup " + chosen.id() + " (revision " + chosen.revision() + ", taken " + chosen.takenAt() + " from "
        + chosen.member() + ") onto " + versions + "; lost: " + lost + "; apiservers stopped meanwhile: " + controlPlane);
    if (request.dryRun()) {
      progress.phase(Phase.DONE);
      return new RestoreResult(cluster, chosen, restoreId, lastSeen, lost, 0, 0, 0, versions, Map.of(), List.of(), true);
    }

    if (request.requireApproval()) awaitApproval("the kube-apiservers and members are stopped", () -> false);
    progress.stopIfCancelled("the kube-apiservers and members are stopped");
    try {
      return restore(request, chosen, restoreId, members, controlPlane, versions, lastSeen, lost);
    } catch (ActivityFailure | ApplicationFailure e) {
      if (e instanceof ApplicationFailure af && FAILED.equals(af.getType())) throw e;
      throw ApplicationFailure.newNonRetryableFailure("restore of " + cluster + " from backup " + chosen.id() + " stopped in phase "
          + progress.phase() + ": " + Failures.rootMessage(e) + ". " + leftBehind() + " Next: fix the cause, then start the"
          + " restore again (members restored already are restored again from the same backup)", FAILED);
    }
  }

  private RestoreResult restore(RestoreRequest request, BackupRecord backup, String restoreId, List<MemberPlacement> members,
      List<String> controlPlane, Map<String, String> versions, long lastSeen, String lost) {
    String cluster = request.cluster();
    ClusterRef ref = new ClusterRef(cluster);
    int apiTimeout = request.effectiveApiServerTimeoutSeconds();

    progress.phase(Phase.STOP_APISERVERS);
    for (String host : controlPlane) {
      progress.member(host);
      progress.run(host + ": stop kube-apiserver", () -> activities.apiServer.stopApiServer(new ControlPlaneRef(cluster, host)));
      apiServersStopped.add(host);
      progress.run(host + ": kube-apiserver gone",
          () -> activities.apiServerWait.awaitStopped(new AwaitApiServerRequest(cluster, host, apiTimeout)));
    }

    progress.phase(Phase.STOP_MEMBERS);
    for (MemberPlacement m : members) {
      progress.member(m.name());
      progress.run(m.name() + ": stop", () -> activities.host.stopMember(new MemberRef(cluster, m.name())));
      keptAside.put(m.name(), progress.record(m.name() + ": keep the data dir aside",
          () -> activities.restore.keepDataDirAside(new MemberRestoreRequest(cluster, m.name(), restoreId))));
      if (!blank(request.etcdVersion())) {
        progress.run(m.name() + ": install " + request.etcdVersion(),
            () -> activities.host.installVersion(new InstallRequest(cluster, m.name(), request.etcdVersion().strip())));
      }
    }

    progress.phase(Phase.RESTORE);
    String initialCluster = members.stream().map(m -> m.name() + "=" + m.peerUrl()).collect(Collectors.joining(","));
    String token = cluster + "-" + restoreId;
    long bump = 0;
    for (MemberPlacement m : members) {
      progress.member(m.name());
      bump = progress.record(m.name() + ": restore backup " + backup.id(), () -> activities.restore.restoreMember(
          new RestoreMemberRequest(cluster, m.name(), backup.id(), restoreId, initialCluster, token)));
    }

    progress.phase(Phase.START_MEMBERS);
    for (MemberPlacement m : members) {
      progress.member(m.name());
      progress.run(m.name() + ": start", () -> activities.host.startMember(new MemberRef(cluster, m.name())));
    }
    for (MemberPlacement m : members) {
      progress.run(m.name() + ": healthy", () -> activities.etcdWait.awaitMemberReady(new AwaitMemberRequest(cluster, m.name(),
          versions.get(m.name()), request.effectiveMemberTimeoutSeconds())));
    }

    // a restored cluster reports version 3.0.0 until its members agree on one again
    String minor = versions.values().stream().min(Versions.ORDER).map(RestoreClusterWorkflowImpl::minorOf).orElseThrow();
    progress.run("cluster version " + minor, () -> activities.etcdWait.awaitClusterVersion(
        new AwaitClusterVersionRequest(cluster, minor, request.effectiveMemberTimeoutSeconds())));

    progress.phase(Phase.POSTFLIGHT);
    ClusterState state = progress.record("discover", () -> activities.etcd.discover(ref));
    List<String> problems = new ArrayList<>(ClusterChecks.memberProblems(state));
    KeyspaceDigest digest = progress.record("keyspace", () -> activities.etcd.keyspaceDigest(new KeyspaceDigestRequest(cluster, 0)));
    long expectedRevision = backup.revision() + bump;
    if (digest.revision() != expectedRevision) {
      problems.add("the restored cluster is at revision " + digest.revision() + ", expected " + expectedRevision + " (backup revision "
          + backup.revision() + (bump == 0 ? "" : " + bump " + bump) + ")");
    }
    if (backup.liveKeys() > 0 && digest.keyCount() != backup.liveKeys()) {
      problems.add("the restored cluster holds " + digest.keyCount() + " keys, the backup " + backup.liveKeys());
    }
    ConsistencyReport consistency = progress.record("consistency", () -> activities.etcd.checkConsistency(ref));
    problems.addAll(ClusterChecks.consistencyProblems(consistency));
    if (!problems.isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure("restore of " + cluster + " from backup " + backup.id() + " finished but the"
          + " check found:\n  - " + String.join("\n  - ", problems) + "\nThe kube-apiservers were left stopped. " + leftBehind(), FAILED);
    }

    progress.phase(Phase.APISERVERS);
    List<String> restarted = new ArrayList<>();
    for (String host : controlPlane) {
      progress.member(host);
      progress.run(host + ": start kube-apiserver", () -> activities.apiServer.startApiServer(new ControlPlaneRef(cluster, host)));
      progress.run(host + ": kube-apiserver healthy",
          () -> activities.apiServerWait.awaitHealthy(new AwaitApiServerRequest(cluster, host, apiTimeout)));
      apiServersStopped.remove(host);
      restarted.add(host);
    }
    progress.member("");

    progress.phase(Phase.DONE);
    progress.message("restored backup " + backup.id() + " at revision " + digest.revision() + " with " + digest.keyCount()
        + " keys; lost: " + lost);
    Map<String, String> after = new LinkedHashMap<>();
    state.members().forEach(m -> after.put(m.name(), m.serverVersion()));
    return new RestoreResult(cluster, backup, restoreId, lastSeen, lost, bump, digest.revision(), digest.keyCount(), after,
        Map.copyOf(keptAside), restarted, false);
  }

  /** What the restore loses: every revision after the backup's, up to the highest one a member reported. */
  static String lostRevisions(BackupRecord backup, long lastSeen) {
    if (lastSeen == 0) return "unknown: no member reported its revision before the restore";
    if (lastSeen <= backup.revision()) return "none (the members reported revision " + lastSeen + ")";
    return "revisions " + (backup.revision() + 1) + ".." + lastSeen + " (" + (lastSeen - backup.revision()) + ")";
  }

  private String leftBehind() {
    return "Data dirs from before the restore are kept aside: " + keptAside + "; kube-apiservers still stopped: " + apiServersStopped
        + " (their manifests are hidden .etcd-runbooks.stopped files beside the manifest path).";
  }

  private static String minorOf(String version) {
    int[] parts = Versions.parts(version);
    return parts[0] + "." + parts[1];
  }

  private static boolean olderMinor(String version, String than) {
    int[] a = Versions.parts(version);
    int[] b = Versions.parts(than);
    return a[0] < b[0] || (a[0] == b[0] && a[1] < b[1]);
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  private static ApplicationFailure refuse(String cluster, List<String> problems) {
    return ApplicationFailure.newNonRetryableFailure("restore of " + cluster + " refused, nothing was touched:\n  - "
        + String.join("\n  - ", problems), REFUSED);
  }
}
