package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.activities.BackupActivities.BackupRequest;
import io.etcdrunbooks.workflows.activities.EtcdActivities.AwaitClusterVersionRequest;
import io.etcdrunbooks.workflows.activities.EtcdActivities.KeyspaceDigestRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.LogTailRequest;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.ConsistencyReport;
import io.etcdrunbooks.workflows.model.KeyspaceDigest;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.HostAccessPreflight;
import io.etcdrunbooks.workflows.phases.MemberVersionSwitch;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.ApplicationFailure;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

public final class UpgradeClusterWorkflowImpl extends RunbookWorkflow implements UpgradeClusterWorkflow {

  private static final int CLUSTER_VERSION_TIMEOUT_SECONDS = 120;
  private static final int LOG_TAIL_LINES = 8;

  private final Activities activities = new Activities();

  public UpgradeClusterWorkflowImpl() {
    super(TYPE);
  }

  @Override
  public UpgradeResult upgrade(UpgradeRequest request) {
    return runChange(request.cluster(), request.dryRun(), () -> run(request));
  }

  private UpgradeResult run(UpgradeRequest request) {
    String cluster = request.cluster();
    ClusterRef ref = new ClusterRef(cluster);

    progress.phase(Phase.DISCOVER);
    ClusterState state;
    try {
      state = progress.record("discover", () -> activities.etcd.discover(ref));
    } catch (ActivityFailure e) {
      if (Activities.UNKNOWN_CLUSTER.equals(Failures.rootType(e))) {
        throw refuse(cluster, List.of(Failures.rootMessage(e)));
      }
      throw e;
    }

    progress.phase(Phase.PREFLIGHT);
    List<String> problems = new ArrayList<>(Preflight.memberProblems(state));
    if (problems.isEmpty()) {
      ConsistencyReport consistency = progress.record("consistency", () -> activities.etcd.checkConsistency(ref));
      problems.addAll(Preflight.consistencyProblems(consistency));
    }
    List<String> available = progress.record("binary source", () -> activities.releases.availableVersions(ref));
    String running = Preflight.runningVersion(state);
    List<String> ladder = List.of();
    try {
      ladder = VersionLadder.plan(running, request.targetVersion(), available);
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
    }
    problems.addAll(HostAccessPreflight.problems(activities, progress, cluster, List.of(), false));
    if (!problems.isEmpty()) {
      throw refuse(cluster, problems);
    }

    progress.phase(Phase.PLAN);
    UpgradePlan plan = plan(state, running, request.targetVersion(), ladder);
    progress.message("plan: " + plan.steps().stream().map(LadderStep::label).collect(Collectors.joining(", ")));
    if (request.dryRun()) {
      progress.phase(Phase.DONE);
      return new UpgradeResult(cluster, true, plan, null, versions(state), state.clusterVersion(), null, null, Map.of(),
          List.of("dry run: nothing was touched"));
    }

    if (request.requireApproval()) awaitApproval("the pre-upgrade backup and the first member", () -> false);
    progress.stopIfCancelled("the pre-upgrade backup");

    progress.phase(Phase.BACKUP);
    BackupRecord backup = progress.record("verified backup", () -> activities.backup.takeVerifiedBackup(
        new BackupRequest(cluster, "pre-upgrade-" + Workflow.getInfo().getRunId().substring(0, 8))));
    KeyspaceDigest before = progress.record("keyspace checksum at revision " + backup.revision(),
        () -> activities.etcd.keyspaceDigest(new KeyspaceDigestRequest(cluster, backup.revision())));

    progress.phase(Phase.UPGRADE);
    MemberVersionSwitch switcher = new MemberVersionSwitch(activities, progress, cluster, request.effectiveMemberTimeoutSeconds());
    Map<String, List<String>> restarted = new LinkedHashMap<>();
    for (LadderStep step : plan.steps()) {
      progress.step(step.label());
      List<String> switched = new ArrayList<>();
      restarted.put(step.label(), switched);
      for (String member : leaderLast(activities.etcd.discover(ref))) {
        progress.safePoint("member " + member + " (" + step.label() + ")");
        try {
          if (switcher.switchTo(member, step.toVersion())) {
            switched.add(member);
          }
        } catch (ActivityFailure | ApplicationFailure e) {
          throw compensate(cluster, step, member, switched, e, switcher, backup);
        }
      }
      progress.member("");
      String clusterVersion = progress.record("cluster version reaches " + step.toMinor(), () -> activities.etcdWait
          .awaitClusterVersion(new AwaitClusterVersionRequest(cluster, step.toMinor(), CLUSTER_VERSION_TIMEOUT_SECONDS)));
      progress.message("cluster version " + clusterVersion + " after " + step.label());
    }

    progress.phase(Phase.POSTFLIGHT);
    return postflight(request, plan, backup, before, restarted);
  }

  /** Followers first, then the member leading now; re-read at each step, since leadership moves during an upgrade. */
  private static List<String> leaderLast(ClusterState state) {
    List<String> order = new ArrayList<>();
    state.members().stream().map(MemberStatus::name).filter(n -> !n.equals(state.leaderName())).forEach(order::add);
    if (!state.leaderName().isEmpty()) order.add(state.leaderName());
    return order;
  }

  private static UpgradePlan plan(ClusterState state, String running, String target, List<String> ladder) {
    List<LadderStep> steps = new ArrayList<>();
    String from = running;
    List<String> order = leaderLast(state);
    for (String to : ladder) {
      steps.add(new LadderStep(from, to, order));
      from = to;
    }
    return new UpgradePlan(running, target, steps);
  }

  /**
   * A member did not come up on the step's version. While the cluster version has not moved, every member switched in
   * this step goes back to the step's old version, one at a time, and the runbook fails naming the member and cause.
   */
  private RuntimeException compensate(String cluster, LadderStep step, String failedMember, List<String> switched,
      RuntimeException failure, MemberVersionSwitch switcher, BackupRecord backup) {
    String cause = Failures.rootMessage(failure);
    if (MemberVersionSwitch.QUORUM_AT_RISK.equals(Failures.rootType(failure))) {
      // Rolling members back would mean stopping them too: leave the (supported) mixed cluster as it is.
      return ApplicationFailure.newNonRetryableFailure("upgrade of " + cluster + " halted before touching "
          + failedMember + " (" + step.label() + "): " + cause + ". Members already on " + step.toVersion() + ": "
          + switched + " (a mixed cluster is supported). " + describe(cluster) + " Next: bring the unhealthy members"
          + " back, then start the upgrade again; members already upgraded are skipped", HALTED);
    }
    String logTail = logTail(cluster, failedMember);
    progress.phase(Phase.ROLLBACK);
    progress.message(failedMember + " failed on " + step.toVersion() + ": " + cause);
    ClusterState state = activities.etcd.discover(new ClusterRef(cluster));
    if (!state.clusterVersion().isEmpty() && UpgradePlan.minorOf(state.clusterVersion()).equals(step.toMinor())
        && !UpgradePlan.minorOf(step.fromVersion()).equals(step.toMinor())) {
      return ApplicationFailure.newNonRetryableFailure("upgrade of " + cluster + " failed at member " + failedMember
          + " (" + step.label() + "): " + cause + logTail + ". The cluster version has already moved to "
          + state.clusterVersion() + ", so the old binaries cannot be put back; the way back is restoring backup "
          + backup.id() + " with the restore runbook. " + describe(cluster), ROLLBACK_FAILED);
    }
    List<String> toRollBack = new ArrayList<>();
    toRollBack.add(failedMember);
    switched.stream().filter(m -> !m.equals(failedMember)).forEach(toRollBack::add);
    List<String> rolledBack = new ArrayList<>();
    try {
      for (String member : toRollBack) {
        if (switcher.switchTo(member, step.fromVersion())) rolledBack.add(member);
      }
    } catch (ActivityFailure | ApplicationFailure e) {
      return ApplicationFailure.newNonRetryableFailure("upgrade of " + cluster + " failed at member " + failedMember
          + " (" + step.label() + "): " + cause + logTail + ". Putting " + step.fromVersion() + " back failed too: "
          + Failures.rootMessage(e) + ". " + (namesOnlySwitchedMembers() ? "Rolled back before that: " + rolledBack + ". " : "")
          + describe(cluster) + " Next: inspect the members named above; backup " + backup.id() + " holds the pre-upgrade data",
          ROLLBACK_FAILED);
    }
    String undone = namesOnlySwitchedMembers() ? rolledBackSentence(failedMember, step.fromVersion(), rolledBack)
        : "Rolled back " + toRollBack + " to " + step.fromVersion() + ".";
    return ApplicationFailure.newNonRetryableFailure("upgrade of " + cluster + " failed at member " + failedMember + " ("
        + step.label() + "): " + cause + logTail + ". " + undone + " "
        + describe(cluster) + " Next: fix " + failedMember + "'s host (see its log) and start the upgrade again", ROLLED_BACK);
  }

  /**
   * Whether a compensation's failure names only the members it switched back; runs recorded before this listed the
   * failed member as rolled back even when it had never left the old version.
   */
  private static boolean namesOnlySwitchedMembers() {
    return Workflow.getVersion("rolled-back-names-switched-only", Workflow.DEFAULT_VERSION, 1) >= 1;
  }

  /** "Rolled back [m1, m2] to 3.4.23. m3 was still healthy on 3.4.23 and was left as it was." */
  static String rolledBackSentence(String failedMember, String fromVersion, List<String> rolledBack) {
    String sentence = rolledBack.isEmpty() ? "No member had to be rolled back." : "Rolled back " + rolledBack + " to " + fromVersion + ".";
    return rolledBack.contains(failedMember) ? sentence
        : sentence + " " + failedMember + " was still healthy on " + fromVersion + " and was left as it was.";
  }

  private String logTail(String cluster, String member) {
    try {
      String tail = activities.host.logTail(new LogTailRequest(cluster, member, LOG_TAIL_LINES)).strip();
      return tail.isEmpty() ? "" : ". Last log lines of " + member + ":\n" + tail + "\n";
    } catch (ActivityFailure e) {
      return ". (log of " + member + " unreadable: " + Failures.rootMessage(e) + ")";
    }
  }

  /** The cluster's state in one sentence, for failure messages. */
  private String describe(String cluster) {
    try {
      ClusterState s = activities.etcd.discover(new ClusterRef(cluster));
      String members = s.members().stream()
          .map(m -> m.name() + " " + (m.reachable() ? m.serverVersion() : "unreachable") + (m.healthy() ? " healthy" : " UNHEALTHY"))
          .collect(Collectors.joining(", "));
      return "Cluster now: " + members + "; cluster version " + s.clusterVersion() + "; leader " + s.leaderName() + ".";
    } catch (ActivityFailure e) {
      return "Cluster state unknown: " + Failures.rootMessage(e) + ".";
    }
  }

  private UpgradeResult postflight(UpgradeRequest request, UpgradePlan plan, BackupRecord backup, KeyspaceDigest before,
      Map<String, List<String>> restarted) {
    String cluster = request.cluster();
    ClusterRef ref = new ClusterRef(cluster);
    List<String> problems = new ArrayList<>();
    List<String> notes = new ArrayList<>();
    ClusterState state = progress.record("discover", () -> activities.etcd.discover(ref));
    problems.addAll(Preflight.memberProblems(state));
    state.members().stream()
        .filter(m -> !request.targetVersion().equals(m.serverVersion()))
        .forEach(m -> problems.add("member " + m.name() + " runs " + m.serverVersion() + ", not " + request.targetVersion()));
    if (!UpgradePlan.minorOf(state.clusterVersion().isEmpty() ? "0.0.0" : state.clusterVersion())
        .equals(UpgradePlan.minorOf(request.targetVersion()))) {
      problems.add("cluster version is " + state.clusterVersion() + ", not " + UpgradePlan.minorOf(request.targetVersion()));
    }
    ConsistencyReport consistency = progress.record("consistency", () -> activities.etcd.checkConsistency(ref));
    problems.addAll(Preflight.consistencyProblems(consistency));
    KeyspaceDigest after = null;
    try {
      after = progress.record("keyspace checksum at revision " + before.revision(),
          () -> activities.etcd.keyspaceDigest(new KeyspaceDigestRequest(cluster, before.revision())));
      if (!after.equals(before)) {
        problems.add("keyspace at revision " + before.revision() + " changed during the upgrade: before " + before
            + ", after " + after + "; compare with backup " + backup.id());
      }
    } catch (ActivityFailure e) {
      notes.add("keyspace at revision " + before.revision() + " could not be read again (" + Failures.rootMessage(e)
          + "); hashkv agreement was checked instead");
    }
    if (!problems.isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure("upgrade of " + cluster + " finished but postflight found:\n  - "
          + String.join("\n  - ", problems), POSTFLIGHT_FAILED);
    }
    progress.phase(Phase.DONE);
    progress.message("all members on " + request.targetVersion() + ", cluster version " + state.clusterVersion());
    return new UpgradeResult(cluster, false, plan, backup, versions(state), state.clusterVersion(), before, after,
        restarted, notes);
  }

  private static Map<String, String> versions(ClusterState state) {
    Map<String, String> v = new LinkedHashMap<>();
    state.members().forEach(m -> v.put(m.name(), m.serverVersion()));
    return v;
  }

  private ApplicationFailure refuse(String cluster, List<String> problems) {
    return ApplicationFailure.newNonRetryableFailure("upgrade of " + cluster + " refused, nothing was touched:\n  - "
        + String.join("\n  - ", problems), PREFLIGHT_REFUSED);
  }

}
