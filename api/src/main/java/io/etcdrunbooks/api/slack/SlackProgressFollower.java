package io.etcdrunbooks.api.slack;

import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.Progress;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionDescription;
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
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells a Slack channel how a runbook started from it goes: reads the runbook's progress every few
 * seconds and posts when the phase changes, then once more when the runbook ends (completed, or
 * failed with the failure's message). When the runbook reaches {@link Phase#AWAITING_APPROVAL}, the
 * message carries Approve and Cancel ({@link SlackButtons}) for the run being followed.
 *
 * <p>With a bot token ({@link SlackChat}) and the command's channel, the first message is posted in
 * the channel and every later one as a reply in its thread, for up to {@link
 * #FOLLOW_IN_THREAD_FOR}. Otherwise (or when the bot may not post in that channel) messages go to
 * the command's response URL: Slack takes at most {@value #MAX_POSTS} there within 30 minutes, so
 * the last one is kept for the end, phases seen while no message may be sent are folded into the
 * next one, and a runbook is followed for at most {@link #FOLLOW_FOR}. Polling runs on two threads
 * of its own, never on a request's.
 */
@Singleton
public final class SlackProgressFollower {

  static final int MAX_POSTS = 5;

  /**
   * Slack's response URLs expire after 30 minutes; the last minute is left for the message that
   * says so.
   */
  static final Duration FOLLOW_FOR = Duration.ofMinutes(29);

  /** A thread does not expire; a runbook waiting a day for approval is followed no longer. */
  static final Duration FOLLOW_IN_THREAD_FOR = Duration.ofHours(24);

  static final int MAX_FOLLOWED = 50;

  private static final Logger LOG = LoggerFactory.getLogger(SlackProgressFollower.class);

  private final WorkflowClient client;
  private final SlackPoster poster;
  private final SlackChat chat;
  private final Duration interval;
  private final AtomicInteger followed = new AtomicInteger();
  private final Set<String> followedIds = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService executor =
      Executors.newScheduledThreadPool(
          2,
          r -> {
            Thread thread = new Thread(r, "slack-progress");
            thread.setDaemon(true);
            return thread;
          });

  SlackProgressFollower(
      WorkflowClient client, SlackPoster poster, SlackChat chat, SlackConfig config) {
    this.client = client;
    this.poster = poster;
    this.chat = chat;
    this.interval = Duration.ofSeconds(config.progressIntervalSeconds());
  }

  /**
   * Starts following a runbook; false (and nothing followed) when {@value #MAX_FOLLOWED} are
   * followed already.
   */
  public boolean follow(String workflowId, URI responseUrl) {
    return follow(workflowId, responseUrl, "");
  }

  /**
   * Starts following a runbook, in a thread of {@code channelId} when the bot token allows it
   * (empty: on the response URL only); false (and nothing followed) when {@value #MAX_FOLLOWED} are
   * followed already.
   */
  public boolean follow(String workflowId, URI responseUrl, String channelId) {
    if (followed.incrementAndGet() > MAX_FOLLOWED) {
      followed.decrementAndGet();
      return false;
    }
    boolean inThread = channelId != null && !channelId.isEmpty() && chat.available();
    followedIds.add(workflowId);
    new Follow(workflowId, responseUrl, inThread ? channelId : null, Instant.now()).schedule();
    return true;
  }

  /** Whether a runbook's progress, approvals included, is posted where it was started from. */
  public boolean follows(String workflowId) {
    return followedIds.contains(workflowId);
  }

  /** Whether progress for a command typed in {@code channelId} goes to a thread there. */
  public boolean postsInThread(String channelId) {
    return channelId != null && !channelId.isEmpty() && chat.available();
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
    private final String channel;
    private final Instant started;
    private final List<String> unposted = new ArrayList<>();
    private int postsLeft = MAX_POSTS;
    private Phase lastPhase;
    private boolean warned;

    /** Posting to {@link #channel} with the bot token; false: to the response URL. */
    private boolean inThread;

    /** The ts of the first message in the channel: later ones are replies in its thread. */
    private String threadTs;

    /**
     * @param channel the channel to post in with the bot token; null: the response URL only
     */
    Follow(String workflowId, URI responseUrl, String channel, Instant started) {
      this.workflowId = workflowId;
      this.responseUrl = responseUrl;
      this.channel = channel;
      this.inThread = channel != null;
      this.started = started;
    }

    private Duration followFor() {
      return inThread ? FOLLOW_IN_THREAD_FOR : FOLLOW_FOR;
    }

    void schedule() {
      try {
        executor.schedule(this::poll, interval.toMillis(), TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.RejectedExecutionException shuttingDown) {
        followed.decrementAndGet();
        followedIds.remove(workflowId);
      }
    }

    private void poll() {
      try {
        if (Instant.now().isAfter(started.plus(followFor()))) {
          finish(
              ":hourglass: stopped following `"
                  + workflowId
                  + "` after "
                  + (inThread
                      ? followFor().toHours() + " hours"
                      : followFor().toMinutes() + " minutes (Slack's response URLs expire)")
                  + "; it is still running: GET /api/v1/runbooks/"
                  + workflowId
                  + " follows it");
          return;
        }
        WorkflowStub stub = client.newUntypedWorkflowStub(workflowId);
        WorkflowExecutionDescription run = stub.describe();
        WorkflowExecutionStatus status = run.getStatus();
        if (status != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
          finish(ending(stub, status));
          return;
        }
        Progress progress = stub.query("progress", Progress.class);
        boolean awaitsApproval = note(progress) && progress.phase() == Phase.AWAITING_APPROVAL;
        if (!unposted.isEmpty() && (inThread || postsLeft > 1)) {
          String text = "`" + workflowId + "`: " + String.join(" → ", unposted);
          unposted.clear();
          if (awaitsApproval) {
            post(approval(text, progress, run.getExecution().getRunId()));
          } else {
            post(SlackReply.inChannel(text));
          }
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

    /** Keeps a new phase for the next message; true when the phase changed. */
    private boolean note(Progress progress) {
      if (progress == null || progress.phase() == null || progress.phase() == lastPhase)
        return false;
      lastPhase = progress.phase();
      StringBuilder text = new StringBuilder("phase ").append(progress.phase().name());
      List<String> details = new ArrayList<>();
      if (progress.step() != null && !progress.step().isBlank()) details.add(progress.step());
      if (progress.member() != null && !progress.member().isBlank())
        details.add("member " + progress.member());
      if (!details.isEmpty()) text.append(" (").append(String.join(", ", details)).append(")");
      unposted.add(SlackReply.escape(text.toString()));
      return true;
    }

    /** The message with Approve and Cancel for this run, its text also the fallback. */
    private SlackReply approval(String phases, Progress progress, String runId) {
      String why =
          progress.message() == null || progress.message().isBlank()
              ? "waiting for approval"
              : SlackReply.escape(progress.message());
      String text = phases + "\n:raised_hand: " + why;
      return SlackReply.inChannel(text)
          .withBlocks(SlackButtons.approval(text, new SlackButtons.Target(workflowId, runId)));
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
      followedIds.remove(workflowId);
      if (inThread || postsLeft > 0) post(SlackReply.inChannel(text));
    }

    private void post(SlackReply reply) {
      if (inThread) {
        Optional<String> ts =
            chat.post(new SlackMessage(channel, reply.text(), threadTs, reply.blocks()));
        if (ts.isPresent() && threadTs == null) threadTs = ts.get();
        if (ts.isPresent() || threadTs != null) return;
        // The bot may not post there (not invited to the channel, a DM): the response URL it is.
        inThread = false;
        if (Instant.now().isAfter(started.plus(FOLLOW_FOR))) return;
      }
      postsLeft--;
      poster.post(responseUrl, reply);
    }
  }
}
