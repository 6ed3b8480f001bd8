package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.activities.HostActivities.LogTailRequest;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.temporal.failure.ActivityFailure;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/** What failure messages say about the cluster and a member, read when the failure happens. */
public final class ClusterDescription {

  private static final int LOG_TAIL_LINES = 8;

  private ClusterDescription() {}

  /**
   * The cluster's state in one sentence: each member's version and health, the cluster version, the
   * leader.
   */
  public static String describe(Activities activities, String cluster) {
    try {
      ClusterState s = activities.etcd.discover(new ClusterRef(cluster));
      String members =
          s.members().stream()
              .map(
                  m ->
                      "%s %s%s"
                          .formatted(
                              m.name(),
                              m.reachable() ? m.serverVersion() : "unreachable",
                              m.healthy() ? " healthy" : " UNHEALTHY"))
              .collect(Collectors.joining(", "));
      return "Cluster now: %s; cluster version %s; leader %s."
          .formatted(members, s.clusterVersion(), s.leaderName());
    } catch (ActivityFailure e) {
      return "Cluster state unknown: " + Failures.rootMessage(e) + ".";
    }
  }

  /** ". Last log lines of m2:\n..." for a failure message, or why the log could not be read. */
  public static String logTail(Activities activities, String cluster, String member) {
    try {
      String tail =
          activities.host.logTail(new LogTailRequest(cluster, member, LOG_TAIL_LINES)).strip();
      return tail.isEmpty() ? "" : ". Last log lines of " + member + ":\n" + tail + "\n";
    } catch (ActivityFailure e) {
      return ". (log of " + member + " unreadable: " + Failures.rootMessage(e) + ")";
    }
  }

  /**
   * Each member's server version ("" when it did not answer), in inventory order: what a runbook's
   * result reports.
   */
  public static Map<String, String> memberVersions(ClusterState state) {
    Map<String, String> versions = new LinkedHashMap<>();
    state.members().forEach(m -> versions.put(m.name(), m.serverVersion()));
    return versions;
  }
}
