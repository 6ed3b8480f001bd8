package io.etcdrunbooks.api.slack;

import static io.etcdrunbooks.api.slack.SlackReply.escape;

import io.etcdrunbooks.workflows.activities.EtcdActivities;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.model.V2Store;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code status <cluster>} for Slack: the live status read from etcd, as the HTTP API's status call
 * reads it. Slack gives a command 3 seconds; a cluster with a member down can take longer to read,
 * so after {@link #BUDGET} the answer says the status follows and posts it to the response URL when
 * it is read. Reads run on at most two threads of their own with a short queue; more at once are
 * refused rather than piled up.
 */
@Singleton
public final class SlackStatusReader {

  static final Duration BUDGET = Duration.ofMillis(2500);

  private final EtcdActivities etcd;
  private final SlackPoster poster;
  private final ThreadPoolExecutor reads =
      new ThreadPoolExecutor(
          2,
          2,
          60,
          TimeUnit.SECONDS,
          new ArrayBlockingQueue<>(8),
          r -> {
            Thread thread = new Thread(r, "slack-status");
            thread.setDaemon(true);
            return thread;
          });

  SlackStatusReader(EtcdActivities etcd, SlackPoster poster) {
    this.etcd = etcd;
    this.poster = poster;
    reads.allowCoreThreadTimeOut(true);
  }

  /** The status as an ephemeral reply, or a reply saying it follows on {@code responseUrl}. */
  SlackReply read(String cluster, Optional<URI> responseUrl) {
    CompletableFuture<ClusterState> read;
    try {
      read = CompletableFuture.supplyAsync(() -> etcd.discover(new ClusterRef(cluster)), reads);
    } catch (RejectedExecutionException busy) {
      return SlackReply.ephemeral("too many status reads are under way: try again in a moment");
    }
    try {
      return SlackReply.ephemeral(text(read.get(BUDGET.toMillis(), TimeUnit.MILLISECONDS)));
    } catch (ExecutionException e) {
      return SlackReply.ephemeral(failure(cluster, e.getCause()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return SlackReply.ephemeral("interrupted while reading the status of *" + cluster + "*");
    } catch (TimeoutException slow) {
      if (responseUrl.isEmpty()) {
        return SlackReply.ephemeral(
            "reading the status of *"
                + cluster
                + "* takes longer than Slack waits, and the command's"
                + " response_url is not under runbooks.slack.response-url-prefix: use GET /api/v1/clusters/"
                + cluster
                + "/status");
      }
      read.whenComplete(
          (state, error) ->
              poster.post(
                  responseUrl.get(),
                  SlackReply.ephemeral(
                      error == null
                          ? text(state)
                          : failure(
                              cluster, error.getCause() == null ? error : error.getCause()))));
      return SlackReply.ephemeral(
          "reading the status of *" + cluster + "*: it follows in a moment");
    }
  }

  @PreDestroy
  void close() {
    reads.shutdownNow();
  }

  /** The cluster, then one line per member. */
  static String text(ClusterState state) {
    List<String> lines = new ArrayList<>();
    lines.add(
        "*"
            + escape(state.cluster())
            + "*: cluster version "
            + orUnknown(state.clusterVersion())
            + ", leader "
            + orUnknown(state.leaderName())
            + ", revision "
            + state.revision());
    for (MemberStatus m : state.members()) {
      String health = !m.reachable() ? "unreachable" : m.healthy() ? "healthy" : "unhealthy";
      String line =
          "• "
              + escape(m.name())
              + ": "
              + (m.reachable() ? escape(m.serverVersion()) + ", " : "")
              + health
              + (m.leads() ? ", leader" : "")
              + (m.learner() ? ", learner" : "");
      if (!m.healthy() && m.errors() != null && !m.errors().isEmpty())
        line += " (" + escape(String.join("; ", m.errors())) + ")";
      lines.add(line);
    }
    if (state.alarms() != null && !state.alarms().isEmpty())
      lines.add("alarms: " + escape(String.join(", ", state.alarms())));
    state
        .alarmsUnreadReason()
        .ifPresent(why -> lines.add("alarms: unreadable (" + escape(why) + ")"));
    if (state.authOn()) lines.add("authentication: on");
    V2Store v2 = state.v2Store();
    if (v2.unread() != null) lines.add("v2 store: unreadable (" + escape(v2.unread()) + ")");
    else if (!v2.servedBy().isEmpty()) {
      lines.add(
          "v2 API served by %s; v2 store: %d keys (%d with a TTL)"
              .formatted(escape(String.join(", ", v2.servedBy())), v2.keys(), v2.keysWithTtl()));
    }
    return String.join("\n", lines);
  }

  private static String failure(String cluster, Throwable e) {
    return "cannot read the status of *" + cluster + "*: " + escape(Failures.rootMessage(e));
  }

  private static String orUnknown(String s) {
    return s == null || s.isEmpty() ? "unknown" : escape(s);
  }
}
