package io.etcdrunbooks.workflows.rollback;

import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.ConsistencyReport;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.model.Versions;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.HostAccessPreflight;
import io.etcdrunbooks.workflows.phases.MemberVersionSwitch;
import io.etcdrunbooks.workflows.phases.ClusterChecks;
import io.etcdrunbooks.workflows.restore.RestoreClusterWorkflow;
import io.etcdrunbooks.workflows.restore.RestoreRequest;
import io.etcdrunbooks.workflows.restore.RestoreResult;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ChildWorkflowFailure;
import io.temporal.workflow.ChildWorkflowOptions;
import io.temporal.workflow.Workflow;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class RollbackClusterWorkflowImpl extends RunbookWorkflow implements RollbackClusterWorkflow {

  private final Activities activities = new Activities();

  public RollbackClusterWorkflowImpl() {
    super(TYPE);
  }

  @Override
  public RollbackResult rollback(RollbackRequest request) {
    return runChange(request.cluster(), request.dryRun(), () -> run(request));
  }

  private RollbackResult run(RollbackRequest request) {
    String cluster = request.cluster();
    ClusterRef ref = new ClusterRef(cluster);
    progress.phase(Phase.DISCOVER);
    ClusterState state;
    try {
      state = progress.record("discover", () -> activities.etcd.discover(ref));
    } catch (ActivityFailure e) {
      throw refuse(cluster, Failures.rootMessage(e));
    }

    progress.phase(Phase.PREFLIGHT);
    String toVersion = request.toVersion() == null || request.toVersion().isBlank()
        ? ClusterChecks.runningVersion(state) : request.toVersion();
    if (!toVersion.matches("\\d+\\.\\d+\\.\\d+")) {
      throw refuse(cluster, "toVersion must look like 3.4.23, got '" + toVersion + "'");
    }
    if (state.leaderName().isEmpty()) {
      throw refuse(cluster, "no member sees a leader: the cluster has no quorum; a rollback cannot restart members safely."
          + " Restore from a backup instead");
    }
    boolean byRestore = movedPast(state.clusterVersion(), toVersion);
    if (byRestore && !request.acknowledgeDataLoss()) {
      throw refuse(cluster, "the cluster version is already " + state.clusterVersion() + ", past " + toVersion
          + ": etcd cannot run older members any more. The only way back is restoring the pre-upgrade backup with "
          + toVersion + "'s binaries, which loses every write made since that backup: start the rollback again with"
          + " acknowledgeDataLoss: true (and backupId, or the newest backup taken on " + minorOf(toVersion) + " is used)");
    }
    List<String> available = progress.record("binary source", () -> activities.releases.availableVersions(ref));
    if (!available.contains(toVersion)) {
      throw refuse(cluster, "version " + toVersion + " is not offered by the binary source (it has " + available + ")");
    }
    List<String> hostProblems = HostAccessPreflight.problems(activities, progress, cluster, List.of(), false);
    if (!hostProblems.isEmpty()) throw refuse(cluster, "not every host can be used:\n  - " + String.join("\n  - ", hostProblems));
    if (byRestore) return rollbackByRestore(request, toVersion, state);
    List<String> newer = newerMembersLeaderLast(state, toVersion);

    progress.phase(Phase.PLAN);
    progress.message("roll back " + newer + " to " + toVersion);
    if (request.dryRun() || newer.isEmpty()) {
      progress.phase(Phase.DONE);
      return new RollbackResult(cluster, toVersion, newer, versions(state), state.clusterVersion(), request.dryRun(), "", "");
    }

    if (request.requireApproval()) awaitApproval("the first member goes back to " + toVersion, () -> false);
    progress.stopIfCancelled("the first member goes back to " + toVersion);
    progress.phase(Phase.ROLLBACK);
    progress.step("-> " + toVersion);
    MemberVersionSwitch switcher = new MemberVersionSwitch(activities, progress, cluster, request.effectiveMemberTimeoutSeconds());
    for (String member : newer) {
      progress.safePoint("member " + member);
      try {
        switcher.switchTo(member, toVersion);
      } catch (ActivityFailure | ApplicationFailure e) {
        throw ApplicationFailure.newNonRetryableFailure("rollback of " + cluster + " to " + toVersion + " failed at member "
            + member + ": " + Failures.rootMessage(e) + ". Next: inspect " + member + "'s host and log, then run the"
            + " rollback again (members already on " + toVersion + " are skipped)", FAILED);
      }
    }
    progress.member("");

    progress.phase(Phase.POSTFLIGHT);
    ClusterState after = progress.record("discover", () -> activities.etcd.discover(ref));
    List<String> problems = new ArrayList<>(ClusterChecks.memberProblems(after));
    after.members().stream().filter(m -> !toVersion.equals(m.serverVersion()))
        .forEach(m -> problems.add("member " + m.name() + " runs " + m.serverVersion() + ", not " + toVersion));
    ConsistencyReport consistency = progress.record("consistency", () -> activities.etcd.checkConsistency(ref));
    problems.addAll(ClusterChecks.consistencyProblems(consistency));
    if (!problems.isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure("rollback of " + cluster + " finished but postflight found:\n  - "
          + String.join("\n  - ", problems), FAILED);
    }
    progress.phase(Phase.DONE);
    progress.message("all members on " + toVersion);
    return new RollbackResult(cluster, toVersion, newer, versions(after), after.clusterVersion(), false, "", "");
  }

  /**
   * The cluster version has moved: the RestoreCluster runbook, as a child, restores the pre-upgrade backup with the old
   * version's binaries on every member (its own checks, phases and progress), and the rollback reports what it lost.
   */
  private RollbackResult rollbackByRestore(RollbackRequest request, String toVersion, ClusterState state) {
    String cluster = request.cluster();
    List<String> members = state.members().stream().map(MemberStatus::name).toList();
    progress.phase(Phase.PLAN);
    progress.message("restore " + (request.backupId() == null || request.backupId().isBlank()
        ? "the newest backup taken on " + minorOf(toVersion) : "backup " + request.backupId()) + " with etcd " + toVersion
        + " on " + members + " (RestoreCluster runbook " + restoreChildId(cluster) + ")");
    RestoreRequest restore = new RestoreRequest(cluster, request.backupId(), true, toVersion, request.dryRun(),
        request.effectiveMemberTimeoutSeconds(), 0, minorOf(toVersion));
    if (request.requireApproval() && !request.dryRun()) awaitApproval("the restore with etcd " + toVersion, () -> false);
    progress.stopIfCancelled("the restore with etcd " + toVersion);
    progress.phase(Phase.ROLLBACK);
    RestoreClusterWorkflow child = Workflow.newChildWorkflowStub(RestoreClusterWorkflow.class,
        ChildWorkflowOptions.newBuilder().setWorkflowId(restoreChildId(cluster)).build());
    RestoreResult restored;
    try {
      restored = progress.record("restore with etcd " + toVersion, () -> child.restore(restore));
    } catch (ChildWorkflowFailure e) {
      throw ApplicationFailure.newNonRetryableFailure("rollback of " + cluster + " to " + toVersion + " through a restore failed: "
          + Failures.rootMessage(e), FAILED);
    }
    ClusterState after = activities.etcd.discover(new ClusterRef(cluster));
    progress.phase(Phase.DONE);
    progress.message(request.dryRun() ? "dry run: would restore backup " + restored.backup().id()
        : "restored backup " + restored.backup().id() + " with etcd " + toVersion + "; lost: " + restored.lostRevisions());
    return new RollbackResult(cluster, toVersion, members, request.dryRun() ? versions(state) : restored.memberVersions(),
        after.clusterVersion(), request.dryRun(), restored.backup().id(), restored.lostRevisions());
  }

  /** The child runs while this rollback holds the cluster's change id, so it gets an id of its own. */
  private static String restoreChildId(String cluster) {
    // before the change id, the child ran as "restore-<cluster>": histories recorded then replay with it
    return Workflow.getVersion("restore-child-id", Workflow.DEFAULT_VERSION, 1) < 1
        ? "restore-" + cluster : RunbookIds.changing(cluster) + "-restore";
  }

  private static String minorOf(String version) {
    int[] parts = Versions.parts(version);
    return parts[0] + "." + parts[1];
  }

  /** Whether the cluster version's minor is already above the target's: older binaries would refuse to join. */
  static boolean movedPast(String clusterVersion, String toVersion) {
    if (clusterVersion == null || clusterVersion.isEmpty()) return false;
    int[] cluster = Versions.parts(clusterVersion);
    int[] target = Versions.parts(toVersion);
    return cluster[0] > target[0] || (cluster[0] == target[0] && cluster[1] > target[1]);
  }

  /**
   * Members not healthy on the target: down ones first (restarting them costs nothing and gives quorum back its
   * margin), then healthy followers, the leader last.
   */
  private static List<String> newerMembersLeaderLast(ClusterState state, String toVersion) {
    return state.members().stream()
        .filter(m -> !toVersion.equals(m.serverVersion()) || !m.healthy())
        .sorted(Comparator.comparing(MemberStatus::healthy).thenComparing(m -> m.name().equals(state.leaderName())))
        .map(MemberStatus::name)
        .toList();
  }

  private static Map<String, String> versions(ClusterState state) {
    Map<String, String> v = new LinkedHashMap<>();
    state.members().forEach(m -> v.put(m.name(), m.serverVersion()));
    return v;
  }

  private static ApplicationFailure refuse(String cluster, String why) {
    return ApplicationFailure.newNonRetryableFailure("rollback of " + cluster + " refused, nothing was touched: " + why, REFUSED);
  }

}
