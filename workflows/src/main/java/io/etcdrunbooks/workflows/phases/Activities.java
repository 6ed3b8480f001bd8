package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.activities.ApiServerActivities;
import io.etcdrunbooks.workflows.activities.BackupActivities;
import io.etcdrunbooks.workflows.activities.EtcdActivities;
import io.etcdrunbooks.workflows.activities.HostActivities;
import io.etcdrunbooks.workflows.activities.InventoryActivities;
import io.etcdrunbooks.workflows.activities.MembershipActivities;
import io.etcdrunbooks.workflows.activities.NewMemberActivities;
import io.etcdrunbooks.workflows.activities.ReleaseActivities;
import io.etcdrunbooks.workflows.activities.RestoreActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.workflow.Workflow;
import java.time.Duration;

/**
 * Activity stubs with the timeouts and retries the runbooks use. Failures a retry cannot fix are
 * thrown by the activities as non-retryable application failures; everything else is retried with
 * backoff.
 */
public final class Activities {

  private static final RetryOptions RETRY =
      RetryOptions.newBuilder()
          .setInitialInterval(Duration.ofSeconds(1))
          .setBackoffCoefficient(2)
          .setMaximumInterval(Duration.ofSeconds(15))
          .setMaximumAttempts(5)
          .setDoNotRetry(FailureType.UnknownCluster.name())
          .build();

  /**
   * For waits that carry their own timeout. The activity measures that timeout from the first
   * attempt, so a retry (after a lost connection, a missed heartbeat or a worker crash) finishes
   * the same wait rather than extending it.
   */
  private static final RetryOptions WAIT_RETRY =
      RetryOptions.newBuilder(RETRY).setMaximumAttempts(3).build();

  public final EtcdActivities etcd;

  /** For waits that carry their own timeout: heartbeats required, {@link #WAIT_RETRY}. */
  public final EtcdActivities etcdWait;

  public final HostActivities host;
  public final ReleaseActivities releases;
  public final BackupActivities backup;
  public final MembershipActivities membership;

  /** For waits that carry their own timeout: heartbeats required, {@link #WAIT_RETRY}. */
  public final MembershipActivities membershipWait;

  public final NewMemberActivities newMember;
  public final InventoryActivities inventory;
  public final ApiServerActivities apiServer;
  public final RestoreActivities restore;

  /** For waits that carry their own timeout: heartbeats required, {@link #WAIT_RETRY}. */
  public final ApiServerActivities apiServerWait;

  // one stub per activity interface and retry policy: long only because each is spelled out
  public Activities() {
    etcd =
        Workflow.newActivityStub(
            EtcdActivities.class, options(Duration.ofMinutes(2), Duration.ofSeconds(20), RETRY));
    etcdWait =
        Workflow.newActivityStub(
            EtcdActivities.class,
            options(Duration.ofMinutes(30), Duration.ofSeconds(20), WAIT_RETRY));
    host =
        Workflow.newActivityStub(
            HostActivities.class, options(Duration.ofMinutes(10), Duration.ofSeconds(20), RETRY));
    releases =
        Workflow.newActivityStub(
            ReleaseActivities.class, options(Duration.ofMinutes(30), Duration.ofMinutes(1), RETRY));
    backup =
        Workflow.newActivityStub(
            BackupActivities.class, options(Duration.ofHours(1), Duration.ofMinutes(1), RETRY));
    membership =
        Workflow.newActivityStub(
            MembershipActivities.class,
            options(Duration.ofMinutes(2), Duration.ofSeconds(20), RETRY));
    membershipWait =
        Workflow.newActivityStub(
            MembershipActivities.class,
            options(Duration.ofMinutes(30), Duration.ofSeconds(20), WAIT_RETRY));
    newMember =
        Workflow.newActivityStub(
            NewMemberActivities.class,
            options(Duration.ofMinutes(10), Duration.ofSeconds(20), RETRY));
    inventory =
        Workflow.newActivityStub(
            InventoryActivities.class,
            options(Duration.ofMinutes(1), Duration.ofSeconds(30), RETRY));
    apiServer =
        Workflow.newActivityStub(
            ApiServerActivities.class,
            options(Duration.ofMinutes(2), Duration.ofSeconds(30), RETRY));
    restore =
        Workflow.newActivityStub(
            RestoreActivities.class, options(Duration.ofHours(1), Duration.ofMinutes(1), RETRY));
    apiServerWait =
        Workflow.newActivityStub(
            ApiServerActivities.class,
            options(Duration.ofMinutes(30), Duration.ofSeconds(20), WAIT_RETRY));
  }

  private static ActivityOptions options(
      Duration startToClose, Duration heartbeat, RetryOptions retry) {
    return ActivityOptions.newBuilder()
        .setStartToCloseTimeout(startToClose)
        .setHeartbeatTimeout(heartbeat)
        .setRetryOptions(retry)
        .build();
  }
}
