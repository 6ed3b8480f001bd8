package io.etcdrunbooks.workflows.testing;

import com.uber.m3.tally.Buckets;
import com.uber.m3.tally.RootScopeBuilder;
import com.uber.m3.tally.Scope;
import com.uber.m3.tally.StatsReporter;
import com.uber.m3.util.Duration;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The phases runbooks went through, read from the phase-duration metric ({@code
 * etcd_runbooks_phase_duration}), which a runbook records once each time it leaves a phase: a phase
 * entered twice shows twice, as on a dashboard. The phase a runbook ends in (DONE, FAILED,
 * CANCELLED) is never left, so it is not listed.
 */
public final class PhaseLog implements StatsReporter {

  private static final String PHASE_DURATION = "etcd_runbooks_phase_duration";

  private final List<String> left = new CopyOnWriteArrayList<>();
  private final Map<String, Double> gauges = new ConcurrentHashMap<>();

  /** A test environment whose workflows report their metrics here. */
  public TestWorkflowEnvironment environment() {
    Scope scope = new RootScopeBuilder().reporter(this).reportEvery(Duration.ofSeconds(1));
    return TestWorkflowEnvironment.newInstance(
        TestEnvironmentOptions.newBuilder().setMetricsScope(scope).build());
  }

  /** The phases left so far, in order, by the runbook of this type: "DISCOVER", "PREFLIGHT", ... */
  public List<String> left(String runbook) {
    return left.stream()
        .filter(e -> e.startsWith(runbook + " "))
        .map(e -> e.substring(runbook.length() + 1))
        .toList();
  }

  @Override
  public void reportTimer(String name, Map<String, String> tags, Duration interval) {
    if (name.endsWith(PHASE_DURATION)) left.add(tags.get("runbook") + " " + tags.get("phase"));
  }

  @Override
  public void reportCounter(String name, Map<String, String> tags, long value) {}

  @Override
  public void reportGauge(String name, Map<String, String> tags, double value) {
    gauges.put(name + new TreeMap<>(tags), value);
  }

  /**
   * The last value reported of each gauge of that name, by its name and tags ("name{etcd_cluster=c,
   * ...}"); Tally reports gauges every second.
   */
  public Map<String, Double> gauges(String name) {
    Map<String, Double> found = new TreeMap<>();
    gauges.forEach(
        (key, value) -> {
          if (key.contains(name + "{")) found.put(key, value);
        });
    return found;
  }

  @Override
  @SuppressWarnings({
    "rawtypes",
    "deprecation"
  }) // tally's StatsReporter declares these with its raw, deprecated Buckets
  public void reportHistogramValueSamples(
      String name,
      Map<String, String> tags,
      Buckets buckets,
      double bucketLowerBound,
      double bucketUpperBound,
      long samples) {}

  @Override
  @SuppressWarnings({"rawtypes", "deprecation"})
  public void reportHistogramDurationSamples(
      String name,
      Map<String, String> tags,
      Buckets buckets,
      Duration bucketLowerBound,
      Duration bucketUpperBound,
      long samples) {}

  @Override
  public com.uber.m3.tally.Capabilities capabilities() {
    return com.uber.m3.tally.CapableOf.REPORTING_TAGGING;
  }

  @Override
  public void flush() {}

  @Override
  public void close() {}
}
