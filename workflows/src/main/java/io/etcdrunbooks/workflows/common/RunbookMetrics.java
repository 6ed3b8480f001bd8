package io.etcdrunbooks.workflows.common;

import com.uber.m3.tally.Scope;
import com.uber.m3.util.Duration;
import io.temporal.workflow.Workflow;
import java.util.Map;

/**
 * A runbook's metrics, through the workflow's metrics scope: Temporal drops them while a workflow
 * replays, so a worker that picks a runbook up again does not count it twice. The worker reports
 * the scope to Micrometer (Prometheus names: {@code etcd_runbooks_runbooks_started_total}, {@code
 * etcd_runbooks_phase_duration_seconds}, ...; durations as histograms with buckets). The cluster is
 * labelled {@code etcd_cluster}: {@code cluster} is the label multi-cluster Prometheus setups add.
 */
final class RunbookMetrics {

  static final String STARTED = "etcd_runbooks_runbooks_started";
  static final String FINISHED = "etcd_runbooks_runbooks_finished";
  static final String PHASE = "etcd_runbooks_phase_duration";
  static final String MEMBER_STEP = "etcd_runbooks_member_step_duration";

  /** A member's down time: from its stop until it is ready again. */
  static final String MEMBER_RESTART = "etcd_runbooks_member_restart_duration";

  /**
   * A schedule's next round is due then (epoch seconds): overdue means the schedule is not healthy.
   */
  static final String SCHEDULE_NEXT = "etcd_runbooks_schedule_next_run_timestamp_seconds";

  static final String CLUSTER_LABEL = "etcd_cluster";

  private final Scope scope;

  private RunbookMetrics(Scope scope) {
    this.scope = scope;
  }

  static RunbookMetrics of(String runbook, String cluster) {
    return new RunbookMetrics(
        Workflow.getMetricsScope().tagged(Map.of("runbook", runbook, CLUSTER_LABEL, cluster)));
  }

  void started() {
    scope.counter(STARTED).inc(1);
  }

  /**
   * @param outcome completed, failed or cancelled
   */
  void finished(String outcome) {
    scope.tagged(Map.of("outcome", outcome)).counter(FINISHED).inc(1);
  }

  void phase(Phase phase, long millis) {
    scope.tagged(Map.of("phase", phase.name())).timer(PHASE).record(Duration.ofMillis(millis));
  }

  void memberStep(String member, Phase phase, long millis) {
    scope
        .tagged(Map.of("member", member, "phase", phase.name()))
        .timer(MEMBER_STEP)
        .record(Duration.ofMillis(millis));
  }

  void memberRestart(String member, long millis) {
    scope.tagged(Map.of("member", member)).timer(MEMBER_RESTART).record(Duration.ofMillis(millis));
  }

  void scheduleNext(long epochMillis) {
    scope.gauge(SCHEDULE_NEXT).update(epochMillis / 1000.0);
  }
}
