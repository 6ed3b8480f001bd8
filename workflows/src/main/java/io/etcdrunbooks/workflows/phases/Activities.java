package io.etcdrunbooks.workflows.phases;

import static java.time.Duration.ofHours;
import static java.time.Duration.ofMinutes;
import static java.time.Duration.ofSeconds;

import io.etcdrunbooks.workflows.activities.ApiServerActivities;
import io.etcdrunbooks.workflows.activities.BackupActivities;
import io.etcdrunbooks.workflows.activities.DowngradeActivities;
import io.etcdrunbooks.workflows.activities.DrillActivities;
import io.etcdrunbooks.workflows.activities.EtcdActivities;
import io.etcdrunbooks.workflows.activities.HostActivities;
import io.etcdrunbooks.workflows.activities.InventoryActivities;
import io.etcdrunbooks.workflows.activities.KubernetesActivities;
import io.etcdrunbooks.workflows.activities.MaintenanceActivities;
import io.etcdrunbooks.workflows.activities.MembershipActivities;
import io.etcdrunbooks.workflows.activities.MigrationActivities;
import io.etcdrunbooks.workflows.activities.NewMemberActivities;
import io.etcdrunbooks.workflows.activities.RecoveryActivities;
import io.etcdrunbooks.workflows.activities.ReleaseActivities;
import io.etcdrunbooks.workflows.activities.RestoreActivities;
import io.etcdrunbooks.workflows.activities.TlsActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.RunbookWorkflow;
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

  /**
   * For {@link HostActivities#watchMember}: a short heartbeat timeout, so that the watch learns of
   * its cancellation (at a heartbeat) within a second or two of the member being ready.
   */
  public final HostActivities hostWatch;

  /**
   * For {@link HostActivities#restartMember}, which waits for the member's readiness: heartbeats
   * required, {@link #WAIT_RETRY}.
   */
  public final HostActivities hostRestart;

  public final ReleaseActivities releases;
  public final BackupActivities backup;
  public final MembershipActivities membership;

  /** For waits that carry their own timeout: heartbeats required, {@link #WAIT_RETRY}. */
  public final MembershipActivities membershipWait;

  public final NewMemberActivities newMember;
  public final InventoryActivities inventory;
  public final ApiServerActivities apiServer;
  public final RestoreActivities restore;
  public final MigrationActivities migration;
  public final TlsActivities tls;
  public final MaintenanceActivities maintenance;
  public final RecoveryActivities recovery;

  /** For waits that carry their own timeout: heartbeats required, {@link #WAIT_RETRY}. */
  public final TlsActivities tlsWait;

  /** For waits that carry their own timeout: heartbeats required, {@link #WAIT_RETRY}. */
  public final ApiServerActivities apiServerWait;

  /** kubeadm-config through the Kubernetes API. */
  public final KubernetesActivities kubernetes;

  /** etcd's online downgrade. */
  public final DowngradeActivities downgrade;

  /** For waits that carry their own timeout: heartbeats required, {@link #WAIT_RETRY}. */
  public final DowngradeActivities downgradeWait;

  /** Restore drills on the worker; restoring and starting the throwaway etcd heartbeat. */
  public final DrillActivities drill;

  /**
   * How long Temporal waits for a wait's heartbeat before it hands the wait to another worker: each
   * wait's own timeout, at most this (a dead worker's wait is taken over sooner). Only the waits,
   * which heartbeat at every poll, take it: a short step that does not heartbeat keeps its own.
   */
  private final Duration waitHeartbeatCap;

  /** Every activity with its own heartbeat timeout. */
  public Activities() {
    this(RunbookWorkflow.DEFAULT_WAIT_HEARTBEAT_TIMEOUT);
  }

  /**
   * Every wait (the stubs with {@link #WAIT_RETRY}) with its own heartbeat timeout, at most {@code
   * waitHeartbeatCap} (the worker's runbooks.activities.wait-heartbeat-timeout-seconds); the other
   * activities with their own. Replay-safe: activity options are not part of what a replay
   * compares.
   */
  public Activities(Duration waitHeartbeatCap) {
    this.waitHeartbeatCap = waitHeartbeatCap;
    etcd = stub(EtcdActivities.class, ofMinutes(2), ofSeconds(20), RETRY);
    etcdWait = stub(EtcdActivities.class, ofMinutes(30), ofSeconds(20), WAIT_RETRY);
    host = stub(HostActivities.class, ofMinutes(10), ofSeconds(20), RETRY);
    hostWatch = stub(HostActivities.class, ofMinutes(30), ofSeconds(2), WAIT_RETRY);
    hostRestart = stub(HostActivities.class, ofMinutes(30), ofSeconds(20), WAIT_RETRY);
    releases = stub(ReleaseActivities.class, ofMinutes(30), ofMinutes(1), RETRY);
    backup = stub(BackupActivities.class, ofHours(1), ofMinutes(1), RETRY);
    membership = stub(MembershipActivities.class, ofMinutes(2), ofSeconds(20), RETRY);
    membershipWait = stub(MembershipActivities.class, ofMinutes(30), ofSeconds(20), WAIT_RETRY);
    newMember = stub(NewMemberActivities.class, ofMinutes(10), ofSeconds(20), RETRY);
    inventory = stub(InventoryActivities.class, ofMinutes(1), ofSeconds(30), RETRY);
    apiServer = stub(ApiServerActivities.class, ofMinutes(2), ofSeconds(30), RETRY);
    restore = stub(RestoreActivities.class, ofHours(1), ofMinutes(1), RETRY);
    migration = stub(MigrationActivities.class, ofHours(1), ofMinutes(1), RETRY);
    tls = stub(TlsActivities.class, ofMinutes(5), ofSeconds(30), RETRY);
    // a large database takes minutes to defragment; the activity heartbeats meanwhile
    maintenance = stub(MaintenanceActivities.class, ofMinutes(30), ofSeconds(30), RETRY);
    recovery = stub(RecoveryActivities.class, ofMinutes(30), ofMinutes(1), RETRY);
    tlsWait = stub(TlsActivities.class, ofMinutes(30), ofSeconds(20), WAIT_RETRY);
    apiServerWait = stub(ApiServerActivities.class, ofMinutes(30), ofSeconds(20), WAIT_RETRY);
    kubernetes = stub(KubernetesActivities.class, ofMinutes(2), ofSeconds(30), RETRY);
    downgrade = stub(DowngradeActivities.class, ofMinutes(2), ofSeconds(30), RETRY);
    downgradeWait = stub(DowngradeActivities.class, ofMinutes(30), ofSeconds(20), WAIT_RETRY);
    drill = stub(DrillActivities.class, ofHours(1), ofMinutes(1), RETRY);
  }

  /**
   * {@link KubernetesActivities#watchNodes} for a watch of {@code watch}: heartbeats every poll,
   * {@link #WAIT_RETRY}; a cancellation reaches it at its next heartbeat.
   */
  public KubernetesActivities nodeWatch(Duration watch) {
    return stub(KubernetesActivities.class, watch.plus(ofMinutes(5)), ofSeconds(20), WAIT_RETRY);
  }

  /**
   * A stub of one activity interface with its start-to-close and heartbeat timeouts, the latter at
   * most {@link #waitHeartbeatCap} for a wait.
   */
  private <T> T stub(
      Class<T> activities, Duration startToClose, Duration heartbeat, RetryOptions retry) {
    boolean capped = retry == WAIT_RETRY && heartbeat.compareTo(waitHeartbeatCap) > 0;
    return Workflow.newActivityStub(
        activities, options(startToClose, capped ? waitHeartbeatCap : heartbeat, retry));
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
