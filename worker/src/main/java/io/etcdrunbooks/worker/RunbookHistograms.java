package io.etcdrunbooks.worker;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;
import java.time.Duration;
import java.util.stream.Stream;

/**
 * The runbooks' durations (phases, member steps, member restarts) exported as Prometheus histograms
 * with fixed buckets, so that percentiles can be computed across workers ({@code
 * histogram_quantile}). From half a second (a member step) to six hours (a phase that waits for an
 * approval or a schedule's next round).
 */
final class RunbookHistograms {

  static final double[] BUCKETS_NANOS =
      Stream.of(
              Duration.ofMillis(500),
              Duration.ofSeconds(1),
              Duration.ofSeconds(2),
              Duration.ofSeconds(5),
              Duration.ofSeconds(10),
              Duration.ofSeconds(30),
              Duration.ofMinutes(1),
              Duration.ofMinutes(2),
              Duration.ofMinutes(5),
              Duration.ofMinutes(10),
              Duration.ofMinutes(30),
              Duration.ofHours(1),
              Duration.ofHours(2),
              Duration.ofHours(6))
          .mapToDouble(Duration::toNanos)
          .toArray();

  static final MeterFilter FILTER =
      new MeterFilter() {
        @Override
        public DistributionStatisticConfig configure(
            Meter.Id id, DistributionStatisticConfig config) {
          if (id.getType() != Meter.Type.TIMER || !id.getName().startsWith("etcd_runbooks_"))
            return config;
          // Temporal's reporter asks for Micrometer's percentile histogram: 70-odd buckets per
          // series, none above 30 s; ours are fewer and reach the hours phases take
          return DistributionStatisticConfig.builder()
              .percentilesHistogram(false)
              .serviceLevelObjectives(BUCKETS_NANOS)
              .build()
              .merge(config);
        }
      };

  private RunbookHistograms() {}
}
