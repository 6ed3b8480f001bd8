package io.etcdrunbooks.worker;

import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.temporal.common.reporter.MicrometerClientStatsReporter;
import jakarta.inject.Singleton;

/**
 * One Prometheus registry per process. Temporal's SDK metrics and the runbooks' own (recorded
 * through the workflow's metrics scope, see {@code RunbookMetrics}) reach it through a Tally scope
 * reported to Micrometer.
 */
@Factory
public class MetricsFactory {

  /**
   * How often the Tally scope hands its values to Micrometer: a scrape sees them at most this late.
   */
  static final com.uber.m3.util.Duration REPORT_EVERY = com.uber.m3.util.Duration.ofSeconds(2);

  @Singleton
  public PrometheusMeterRegistry prometheusRegistry() {
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    registry.config().meterFilter(RunbookHistograms.FILTER);
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    return registry;
  }

  @Singleton
  @Bean(preDestroy = "close")
  public Scope temporalMetricsScope(PrometheusMeterRegistry registry) {
    return new RootScopeBuilder()
        .reporter(new MicrometerClientStatsReporter(registry))
        .reportEvery(REPORT_EVERY);
  }
}
