package io.etcdrunbooks.activities.etcd;

import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.activities.support.WaitDeadline;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.workflows.activities.EtcdActivities.AwaitMemberRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberStatus;
import java.util.List;

/**
 * A member's readiness wait whose clients are made before the member stops: the member list read
 * and the other members connected to while it is still up (or while its stop runs), so that once it
 * is back only its own connection is new. Closed after the wait. The wait itself ({@link
 * #await(ClusterInspector, AwaitMemberRequest)}) is also every other readiness wait: an inventory
 * member's and a new member's.
 */
public final class MemberReadiness implements AutoCloseable {

  /** A restarted member is polled often: its down time ends when it is seen ready. */
  static final long READY_POLL_MILLIS = 50;

  static final long CATCH_UP_POLL_MILLIS = 10;

  private final EtcdClients clients;
  private final ClusterInspector inspector;
  private final AwaitMemberRequest request;
  private final WaitDeadline deadline;

  /**
   * Made on the activity's thread: the wait's deadline counts from the first attempt's scheduling
   * ({@link WaitDeadline}), which only that thread can read, and so a retried restart finishes the
   * same wait. It covers the restart and the readiness both.
   */
  public MemberReadiness(EtcdClients clients, AwaitMemberRequest request) {
    this.clients = clients;
    this.inspector = new ClusterInspector(clients);
    this.request = request;
    this.deadline = WaitDeadline.afterSeconds(request.timeoutSeconds());
  }

  /**
   * Reads the member list and the status of every other member, which connects to them; what fails
   * here is only not warmed, the wait reads it again.
   */
  public void warm() {
    try {
      inspector.memberIds();
      for (MemberSpec m : clients.spec().members()) {
        if (!m.name().equals(request.member())) inspector.status(m.name());
      }
    } catch (EtcdCallException e) {
      // the wait itself says what does not answer
    }
  }

  /** Heartbeats until the member is healthy, on its version and caught up with the leader. */
  public MemberStatus await() {
    try {
      return await(inspector, request, deadline);
    } catch (EtcdCallException e) {
      throw FailureType.MembersUnreachable.retryable(e.getMessage(), e);
    }
  }

  /** The whole cluster as a discovery reads it, over the connections the wait made. */
  public ClusterState clusterState() {
    return inspector.state();
  }

  @Override
  public void close() {
    clients.close();
  }

  /** Also used for members not yet in the inventory: the inspector's spec then carries them. */
  static MemberStatus await(ClusterInspector inspector, AwaitMemberRequest request) {
    return await(inspector, request, WaitDeadline.afterSeconds(request.timeoutSeconds()));
  }

  /** As {@link #await(ClusterInspector, AwaitMemberRequest)}, until {@code deadline}. */
  static MemberStatus await(
      ClusterInspector inspector, AwaitMemberRequest request, WaitDeadline deadline) {
    String member = knownMember(inspector, request.member());
    String cluster = inspector.clients().spec().name();
    MemberStatus last = null;
    String notReady;
    CatchUp catchUp = new CatchUp();
    do {
      // the etcd API is asked only once /health answers: a gRPC connection refused while etcd
      // starts waits out its reconnect backoff, which would count as down time. A member found
      // healthy and only applying its last entries is not asked again: its /health is a read
      // through raft, its status shows what is left
      boolean onlyApplying = catchUp.applying() && last != null && last.healthy();
      if (!onlyApplying && !inspector.answersHealthy(member)) {
        notReady = "its /health does not say true yet";
        Heartbeats.beat("member '" + member + "' not ready: " + notReady);
        Heartbeats.pause(READY_POLL_MILLIS);
        continue;
      }
      last = inspector.raftStatus(member); // its /health was just seen true
      Heartbeats.beat("member '" + member + "': status read");
      notReady = whyNotReady(inspector, last, request.expectedVersion(), catchUp);
      if (notReady == null) return last;
      Heartbeats.beat("member '" + member + "' not ready: " + notReady);
      // a member that only has a few entries left to apply is looked at again sooner
      Heartbeats.pause(catchUp.applying() ? CATCH_UP_POLL_MILLIS : READY_POLL_MILLIS);
    } while (!deadline.passed());
    if (last == null) last = inspector.status(member);
    throw FailureType.MemberNotReady.nonRetryable(
        "member '"
            + member
            + "' of cluster '"
            + cluster
            + "' was not ready within "
            + request.timeoutSeconds()
            + " s: "
            + notReady
            + " (last reported: reachable="
            + last.reachable()
            + ", version="
            + (last.serverVersion().isEmpty() ? "unknown" : last.serverVersion())
            + ", raft index "
            + last.raftIndex()
            + ", errors "
            + last.errors()
            + "). Next: read the member's log (logTail), check that version "
            + request.expectedVersion()
            + " is installed and its service running, then retry or roll the member back.");
  }

  /** Null when ready, else the reason. */
  private static String whyNotReady(
      ClusterInspector inspector, MemberStatus status, String expectedVersion, CatchUp catchUp) {
    if (!status.reachable()) return "not reachable";
    if (!status.healthy())
      return status.leaderId() == 0 ? "sees no leader" : "unhealthy: " + status.errors();
    if (!expectedVersion.equals(status.serverVersion())) {
      return "runs " + status.serverVersion() + ", expected " + expectedVersion;
    }
    if (status.leads()) return null;
    // the target is the leader's index when the wait began: read once, then only the member
    if (catchUp.hasTarget()) return catchUp.problem(status, null);
    String leaderName = inspector.leaderName(List.of(status));
    Heartbeats.beat("member '" + status.name() + "': leader is '" + leaderName + "'");
    if (leaderName.isEmpty())
      return "its leader " + Long.toHexString(status.leaderId()) + " is not an inventory member";
    MemberStatus leader = inspector.raftStatus(leaderName);
    if (!leader.reachable()) return "its leader '" + leaderName + "' is not reachable";
    return catchUp.problem(status, leader);
  }

  /**
   * A member has caught up when it has applied everything the leader had committed when the wait
   * began (the first time a leader was seen): a target fixed once, not a lag behind a moving
   * leader, so a busy cluster cannot keep a member "ready" while it still replays.
   */
  static final class CatchUp {
    private long target = -1;
    private String leader = "";
    private boolean applying;

    boolean hasTarget() {
      return target >= 0;
    }

    /** The last look found the member healthy on its version, only still applying entries. */
    boolean applying() {
      return applying;
    }

    /** Null when caught up, else why not. */
    String problem(MemberStatus member, MemberStatus currentLeader) {
      if (target < 0) {
        target = currentLeader.raftIndex();
        leader = currentLeader.name();
      }
      long applied = appliedIndex(member);
      applying = applied < target;
      return applied >= target
          ? null
          : "applied index %d, behind index %d that leader '%s' had committed when the wait began"
              .formatted(applied, target, leader);
    }

    /** etcd 3.3 reports no applied index: its raft index is the nearest it has. */
    static long appliedIndex(MemberStatus member) {
      return member.raftAppliedIndex() > 0 ? member.raftAppliedIndex() : member.raftIndex();
    }
  }

  /** The member's name when the inspector's spec has it, else UnknownMember (not retried). */
  static String knownMember(ClusterInspector inspector, String name) {
    try {
      return inspector.clients().spec().member(name).name();
    } catch (IllegalArgumentException e) {
      throw FailureType.UnknownMember.nonRetryable(e.getMessage());
    }
  }
}
