package io.etcdrunbooks.workflows.fleet;

/**
 * Where one cluster of a fleet stands.
 *
 * @param cluster the cluster
 * @param wave its wave's name ("canary", "small", ...); empty while not in one
 * @param state {@link #PENDING}, {@link #REFUSED}, {@link #BUSY}, {@link #ON_TARGET}, {@link
 *     #RUNNING}, {@link #UPGRADED}, {@link #FAILED} or {@link #NOT_STARTED}
 * @param detail the plan, the refusal or the failure, in words
 * @param startedAtMillis workflow time its upgrade started (0: not started)
 * @param finishedAtMillis workflow time its upgrade ended (0: not ended)
 */
public record ClusterOutcome(
    String cluster,
    String wave,
    String state,
    String detail,
    long startedAtMillis,
    long finishedAtMillis) {

  public static final String PENDING = "pending";
  public static final String REFUSED = "refused";
  public static final String BUSY = "busy";
  public static final String ON_TARGET = "on target";
  public static final String RUNNING = "running";
  public static final String UPGRADED = "upgraded";
  public static final String FAILED = "failed";
  public static final String NOT_STARTED = "not started";

  ClusterOutcome with(String newState, String newDetail) {
    return new ClusterOutcome(
        cluster, wave, newState, newDetail, startedAtMillis, finishedAtMillis);
  }

  ClusterOutcome inWave(String name) {
    return new ClusterOutcome(cluster, name, state, detail, startedAtMillis, finishedAtMillis);
  }

  ClusterOutcome started(long at) {
    return new ClusterOutcome(cluster, wave, RUNNING, detail, at, 0);
  }

  ClusterOutcome ended(String newState, String newDetail, long at) {
    return new ClusterOutcome(cluster, wave, newState, newDetail, startedAtMillis, at);
  }
}
