package io.etcdrunbooks.worker;

import io.etcdrunbooks.runtime.schedules.RunbookSchedules;
import io.etcdrunbooks.runtime.schedules.SchedulesConfig;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The health of the Temporal Schedules we made (backups, restore drills, maintenance), as Temporal
 * lists them: {@code etcd_runbooks_schedule_paused{schedule,runbook,etcd_cluster}} (1 while paused)
 * and {@code etcd_runbooks_schedule_next_action_timestamp_seconds{...}} (when it next starts a run;
 * no series while paused). Read again in the background when a scrape finds the values older than
 * {@link #MAX_AGE}; not read when the worker keeps no schedules, nor once Temporal has said it has
 * none (the embedded test server).
 */
@Singleton
public final class ScheduleMetrics {

  static final String PAUSED = "etcd.runbooks.schedule.paused";
  static final String NEXT_ACTION = "etcd.runbooks.schedule.next.action.timestamp";
  static final Duration MAX_AGE = Duration.ofSeconds(10);

  private static final Logger log = LoggerFactory.getLogger(ScheduleMetrics.class);

  private final RunbookSchedules schedules;
  private final boolean enabled;
  private final MultiGauge paused;
  private final MultiGauge nextAction;
  private final BackgroundRead read;
  private volatile boolean unsupported;

  public ScheduleMetrics(
      RunbookSchedules schedules, SchedulesConfig config, PrometheusMeterRegistry registry) {
    this.schedules = schedules;
    this.enabled = config.enabled();
    this.paused =
        MultiGauge.builder(PAUSED)
            .description("1 while the schedule is paused, 0 otherwise")
            .register(registry);
    this.nextAction =
        MultiGauge.builder(NEXT_ACTION)
            .description("when the schedule next starts a run, Unix seconds")
            .baseUnit("seconds")
            .register(registry);
    this.read = new BackgroundRead("Temporal Schedules", MAX_AGE, this::readSchedules);
  }

  /** Starts a read of the schedules when the last one is older than {@link #MAX_AGE}. */
  public void refreshIfStale() {
    if (enabled && !unsupported) read.startIfStale();
  }

  private void readSchedules() {
    List<RunbookSchedules.State> states;
    try {
      states = schedules.ours();
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() != Status.Code.UNIMPLEMENTED) throw e;
      unsupported = true;
      log.info("this Temporal server has no schedules: no schedule metrics");
      return;
    }
    List<MultiGauge.Row<?>> pausedRows = new ArrayList<>();
    List<MultiGauge.Row<?>> nextRows = new ArrayList<>();
    for (RunbookSchedules.State s : states) {
      Tags tags = Tags.of("schedule", s.id(), "runbook", s.runbook(), "etcd_cluster", s.cluster());
      pausedRows.add(MultiGauge.Row.of(tags, s.paused() ? 1 : 0));
      // Temporal's list still shows a paused schedule's next times
      if (!s.paused())
        s.nextAction()
            .ifPresent(at -> nextRows.add(MultiGauge.Row.of(tags, at.toEpochMilli() / 1000.0)));
    }
    paused.register(pausedRows, true);
    nextAction.register(nextRows, true);
  }
}
