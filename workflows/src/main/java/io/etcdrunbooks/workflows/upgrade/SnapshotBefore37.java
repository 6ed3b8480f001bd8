package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.activities.HostActivities.SnapshotPastRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.MemberVersionSwitch;
import io.etcdrunbooks.workflows.phases.QuorumGuard;

/**
 * Before a member moves from 3.6 to 3.7: its newest raft snapshot must lie past every entry etcd
 * 3.5 wrote, since 3.7 cannot replay 3.5's v2-encoded WAL entries (the member panics "Apply, could
 * not find a header"; see {@link
 * io.etcdrunbooks.workflows.activities.HostActivities#snapshotPast}). Neither etcd's 3.7 upgrade
 * guide (https://etcd.io/docs/v3.7/upgrades/upgrade_3_7/) nor 3.6 itself takes care of it: 3.6
 * forces a snapshot only after a downgrade (server/etcdserver/apply/apply.go ClusterVersionSet).
 */
final class SnapshotBefore37 {

  private SnapshotBefore37() {}

  /** Whether the rung enters 3.7 from 3.6, in runs since the change. */
  static boolean needed(LadderStep step) {
    return "3.6".equals(step.fromVersion().minorLabel())
        && "3.7".equals(step.toMinor())
        && UpgradePatches.SNAPSHOT_BEFORE_3_7.applies();
  }

  /**
   * The rung's first read was made once the cluster version was 3.6, after which only 3.6 members
   * write: every 3.5 entry lies at or below the highest raft index any member reported then.
   */
  static long lastOldEntry(ClusterState rungStart) {
    return rungStart.members().stream().mapToLong(MemberStatus::raftIndex).max().orElse(0);
  }

  /** Restarts the member on 3.6 until a snapshot covers {@code index}, when it must. */
  static void run(UpgradeRun run, LadderStep step, String member, long index) {
    ClusterState state = run.ctx.activities().etcd.discover(run.ctx.ref());
    if (MemberVersionSwitch.alreadyOn(state, member, step.toVersion().toString())) return;
    QuorumGuard.whyUnsafeToStop(state, member)
        .ifPresent(
            why -> {
              throw FailureType.QuorumAtRisk.nonRetryable(why);
            });
    String done =
        run.ctx
            .progress()
            .record(
                "%s: raft snapshot past index %d before etcd %s"
                    .formatted(member, index, step.toVersion()),
                () ->
                    run.ctx
                        .activities()
                        .hostRestart
                        .snapshotPast(
                            new SnapshotPastRequest(
                                run.cluster(),
                                member,
                                index,
                                run.request.effectiveMemberTimeoutSeconds())));
    run.ctx.progress().message(member + ": " + done);
  }
}
