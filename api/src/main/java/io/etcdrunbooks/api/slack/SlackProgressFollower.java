package io.etcdrunbooks.api.slack;

import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.Progress;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowStub;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a Slack channel how a runbook started from it goes: reads the runbook's progress every few
 * seconds and posts to the command's response URL when the phase changes, then once more when the
 * runbook ends (completed, or failed with the failure's message). Slack takes at most {@value
 * #MAX_POSTS} messages on a response URL within 30 minutes, so the last one is kept for the end and
 * phases seen while no message may be sent are folded into the next one. A runbook is followed for
 * at most {@link #FOLLOW_FOR}; polling runs on two threads of its own, never on a request's.
 */
@Singleton
public final class SlackProgressFollower {

  static final int MAX_POSTS = 5;

  /**
   * Slack's response URLs expire after 30 minutes; the last minute is left for the message that
   * says so.
   */
  static final Duration FOLLOW_FOR = Duration.ofMinutes(29);

  static final int MAX_FOLLOWED = 50;

  private static final Logger LOG = LoggerFactory.getLogger(SlackProgressFollower.class);

  private final WorkflowClient client;
  private final SlackPoster poster;
  private final Duration interval;
  private final AtomicInteger followed = new AtomicInteger();
  private final ScheduledExecutorService executor =
      Executors.newScheduledThreadPool(
          2,
          r -> {
            Thread thread = new Thread(r, "slack-progress");
            thread.setDaemon(true);
            return thread;
          });

  SlackProgressFollower(WorkflowClient client, SlackPoster poster, SlackConfig config) {
    this.client = client;
    this.poster = poster;
    this.interval = Duration.ofSeconds(config.progressIntervalSeconds());
  }

  /**
   * Starts following a runbook; false (and nothing followed) when {@value #MAX_FOLLOWED} are
   * followed already.
   */
  public boolean follow(String workflowId, URI responseUrl) {
    if (followed.incrementAndGet() > MAX_FOLLOWED) {
      followed.decrementAndGet();
      return false;
    }
    new Follow(workflowId, responseUrl, Instant.now().plus(FOLLOW_FOR)).schedule();
    return true;
  }

  @PreDestroy
  void close() {
    executor.shutdownNow();
  }

  /**
   * One followed runbook; only ever touched by one poll at a time (each poll schedules the next).
   */
  private final class Follow {
    private final String workflowId;
    private final URI responseUrl;
    private final Instant deadline;
    private final List<String> unposted = new ArrayList<>();
    private int postsLeft = MAX_POSTS;
    private Phase lastPhase;
    private boolean warned;

    Follow(String workflowId, URI responseUrl, Instant deadline) {
      this.workflowId = workflowId;
      this.responseUrl = responseUrl;
      this.deadline = deadline;
    }

    void schedule() {
      try {
        executor.schedule(this::poll, interval.toMillis(), TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException shuttingDown) {
        followed.decrementAndGet();
      }
    }

    private void poll() {
      try {
        if (Instant.now().isAfter(deadline)) {
          finish(
              ":hourglass: stopped following `"
                  + workflowId
                  + "` after "
                  + FOLLOW_FOR.toMinutes()
                  + " minutes (Slack's"
                  + " response URLs expire); it is still running: GET /api/v1/runbooks/"
                  + workflowId
                  + " follows it");
          return;
        }
        WorkflowStub stub = client.newUntypedWorkflowStub(workflowId);
        WorkflowExecutionStatus status = stub.describe().getStatus();
        if (status != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
          finish(ending(stub, status));
          return;
        }
        note(stub.query("progress", Progress.class));
        if (!unposted.isEmpty() && postsLeft > 1) {
          post("`" + workflowId + "`: " + String.join(" → ", unposted));
          unposted.clear();
        }
        schedule();
      } catch (WorkflowNotFoundException e) {
        finish(
            ":warning: `"
                + workflowId
                + "` is gone from Temporal; nothing more can be told about it here");
      } catch (RuntimeException e) {
        // Temporal or the worker not answering for a moment: try again at the next interval, until
        // the deadline.
        if (!warned)
          LOG.warn("slack: cannot read the progress of {}: {}", workflowId, e.toString());
        warned = true;
        schedule();
      }
    }

    private void note(Progress progress) {
      if (progress == null || progress.phase() == null || progress.phase() == lastPhase) return;
      lastPhase = progress.phase();
      StringBuilder text = new StringBuilder("phase ").append(progress.phase().name());
      List<String> details = new ArrayList<>();
      if (progress.step() != null && !progress.step().isBlank()) details.add(progress.step());
      if (progress.member() != null && !progress.member().isBlank())
        details.add("member " + progress.member());
      if (!details.isEmpty()) text.append(" (").append(String.join(", ", details)).append(")");
      unposted.add(SlackReply.escape(text.toString()));
    }

    private String ending(WorkflowStub stub, WorkflowExecutionStatus status) {
      String passed = unposted.isEmpty() ? "" : " (after " + String.join(" → ", unposted) + ")";
      if (status == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED) {
        return ":white_check_mark: `" + workflowId + "` completed" + passed + outcome(stub);
      }
      if (status == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_FAILED) {
        return ":x: `" + workflowId + "` failed" + passed + ": " + SlackReply.escape(failure(stub));
      }
      return ":warning: `"
          + workflowId
          + "` ended: "
          + status
              .name()
              .replace("WORKFLOW_EXECUTION_STATUS_", "")
              .toLowerCase(java.util.Locale.ROOT)
          + passed;
    }

    /** The member versions of a finished upgrade or rollback, when the result has them. */
    private String outcome(WorkflowStub stub) {
      try {
        Map<?, ?> result = stub.getResult(5, TimeUnit.SECONDS, Map.class);
        Object versions = result == null ? null : result.get("memberVersions");
        return versions instanceof Map<?, ?> v && !v.isEmpty()
            ? ": members " + SlackReply.escape(v.toString())
            : "";
      } catch (TimeoutException | RuntimeException e) {
        return "";
      }
    }

    private String failure(WorkflowStub stub) {
      try {
        stub.getResult(5, TimeUnit.SECONDS, Map.class);
        return "(no failure recorded)";
      } catch (WorkflowFailedException e) {
        return Failures.rootMessage(e);
      } catch (TimeoutException | RuntimeException e) {
        return "(the failure could not be read: "
            + e.getClass().getSimpleName()
            + "); GET /api/v1/runbooks/"
            + workflowId;
      }
    }

    private void finish(String text) {
      followed.decrementAndGet();
      if (postsLeft > 0) post(text);
    }

    private void post(String text) {
      postsLeft--;
      poster.post(responseUrl, SlackReply.inChannel(text));
    }
  }
}
