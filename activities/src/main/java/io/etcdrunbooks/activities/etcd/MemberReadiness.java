package io.etcdrunbooks.activities.etcd;

import io.etcdrunbooks.activities.support.WaitDeadline;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.workflows.activities.EtcdActivities.AwaitMemberRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberStatus;

/**
 * A member's readiness wait whose clients are made before the member stops: the member list read
 * and the other members connected to while it is still up (or while its stop runs), so that once it
 * is back only its own connection is new. Closed after the wait.
 */
public final class MemberReadiness implements AutoCloseable {

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
      return EtcdActivitiesImpl.awaitMemberReady(inspector, request, deadline);
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
}
