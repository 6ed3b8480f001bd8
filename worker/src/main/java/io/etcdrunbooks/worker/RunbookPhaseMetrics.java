package io.etcdrunbooks.worker;

import io.etcdrunbooks.runtime.visibility.OpenRunbookPhases;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import jakarta.inject.Singleton;
import java.time.Duration;

/**
 * {@code etcd_runbooks_phase_entered_timestamp_seconds{runbook,etcd_cluster,phase}}: since when
 * (Unix seconds) the oldest running runbook of that type and cluster has been in that phase, read
 * from Temporal ({@link OpenRunbookPhases}) so that every worker reports every running runbook,
 * also one taken over from a worker that died; no series for a phase no runbook is in. What the
 * stuck-phase, approval-wait and member-down-without-a-runbook alerts read. Read again in the
 * background when a scrape finds the values older than {@link #MAX_AGE}.
 */
@Singleton
public final class RunbookPhaseMetrics {

  static final String NAME = "etcd.runbooks.phase.entered.timestamp";
  static final Duration MAX_AGE = Duration.ofSeconds(10);

  private final OpenRunbookPhases phases;
  private final MultiGauge gauge;
  private final BackgroundRead read;

  public RunbookPhaseMetrics(OpenRunbookPhases phases, PrometheusMeterRegistry registry) {
    this.phases = phases;
    this.gauge =
        MultiGauge.builder(NAME)
            .description(
                "since when the oldest running runbook of its type and cluster is in the phase")
            .baseUnit("seconds")
            .register(registry);
    this.read = new BackgroundRead("running runbooks' phases", MAX_AGE, this::readPhases);
  }

  /** Starts a read of the running runbooks when the last one is older than {@link #MAX_AGE}. */
  public void refreshIfStale() {
    read.startIfStale();
  }

  private void readPhases() {
    gauge.register(
        phases.read().stream()
            .<MultiGauge.Row<?>>map(
                p ->
                    MultiGauge.Row.of(
                        Tags.of(
                            "runbook",
                            p.runbook(),
                            "etcd_cluster",
                            p.cluster(),
                            "phase",
                            p.phase().name()),
                        p.sinceMillis() / 1000.0))
            .toList(),
        true);
  }
}
