package io.etcdrunbooks.api.slack;

import io.etcdrunbooks.api.RunbookList;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.Progress;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Requires;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowTargetOptions;
import jakarta.annotation.PreDestroy;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posts Approve and Cancel ({@link SlackButtons}) in {@code runbooks.slack.approvals-channel} for
 * every runbook that waits for approval and is not followed from Slack: started by Alertmanager,
 * the API, the Web UI or a schedule, it would otherwise wait unseen. One message per run, when it
 * is first seen waiting (a fleet's wave waiting for its approval included); runbooks started from a
 * Slack command get their buttons in their own thread instead. A click is handled like any other
 * ({@link SlackInteractionHandler}): verified, the clicker's role and clusters checked, audited.
 * Reads Temporal every {@code progress-interval-seconds} on a thread of its own.
 */
@Context
@Requires(property = "runbooks.slack.approvals-channel", pattern = ".+")
public final class SlackApprovalAnnouncer {

  /** Posts tried for one run before it is given up (logged), e.g. the bot is not in the channel. */
  static final int MAX_ATTEMPTS = 3;

  private static final Logger LOG = LoggerFactory.getLogger(SlackApprovalAnnouncer.class);

  private final String channel;
  private final RunbookList runbooks;
  private final WorkflowClient client;
  private final SlackChat chat;
  private final SlackProgressFollower followed;

  /** Runs announced (or given up), by {@code workflowId/runId}, while they stay open. */
  private final Set<String> announced = new HashSet<>();

  private final Map<String, Integer> attempts = new HashMap<>();
  private final ScheduledExecutorService executor;

  SlackApprovalAnnouncer(
      SlackConfig config,
      RunbookList runbooks,
      WorkflowClient client,
      SlackChat chat,
      SlackProgressFollower followed) {
    this.channel = config.approvalsChannel();
    this.runbooks = runbooks;
    this.client = client;
    this.chat = chat;
    this.followed = followed;
    if (channel.isEmpty()) {
      executor = null;
      return;
    }
    if (!chat.available()) {
      LOG.warn(
          "runbooks.slack.approvals-channel is {} but the bot token could not be loaded: no"
              + " approval is posted there",
          channel);
      executor = null;
      return;
    }
    executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread thread = new Thread(r, "slack-approvals");
              thread.setDaemon(true);
              return thread;
            });
    executor.scheduleWithFixedDelay(
        this::pollQuietly,
        config.progressIntervalSeconds(),
        config.progressIntervalSeconds(),
        TimeUnit.SECONDS);
  }

  @PreDestroy
  void close() {
    if (executor != null) executor.shutdownNow();
  }

  private void pollQuietly() {
    try {
      poll();
    } catch (RuntimeException e) {
      // Temporal not answering for a moment: the next poll tries again
      LOG.warn("slack approvals: cannot list the running runbooks: {}", e.toString());
    }
  }

  /** One look at the running runbooks; package-private for tests that drive it directly. */
  synchronized void poll() {
    Set<String> open = new HashSet<>();
    for (WorkflowExecution run : runbooks.mayAwaitApproval()) {
      String key = run.getWorkflowId() + "/" + run.getRunId();
      open.add(key);
      if (announced.contains(key) || followed.follows(run.getWorkflowId())) continue;
      Progress progress = progressOf(run);
      if (progress == null || progress.phase() != Phase.AWAITING_APPROVAL) continue;
      if (announce(run, progress)) {
        announced.add(key);
        attempts.remove(key);
      } else if (attempts.merge(key, 1, Integer::sum) >= MAX_ATTEMPTS) {
        LOG.warn(
            "slack approvals: {} waits for approval but could not be posted to {} after {} tries;"
                + " is the bot invited to the channel? Approve it with /etcd approve {} or the API",
            run.getWorkflowId(),
            channel,
            MAX_ATTEMPTS,
            run.getWorkflowId());
        announced.add(key);
        attempts.remove(key);
      }
    }
    announced.retainAll(open);
    attempts.keySet().retainAll(open);
  }

  private Progress progressOf(WorkflowExecution run) {
    try {
      WorkflowStub stub =
          client.newUntypedWorkflowStub(
              WorkflowTargetOptions.newBuilder().setWorkflowExecution(run).build());
      // a list can still show a run that has ended, and a query to an ended run waits for a
      // worker to replay it
      if (stub.describe().getStatus() != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING)
        return null;
      return stub.query("progress", Progress.class);
    } catch (RuntimeException e) {
      // ended since it was listed, or its worker is busy: looked at again next time
      return null;
    }
  }

  private boolean announce(WorkflowExecution run, Progress progress) {
    StringBuilder text =
        new StringBuilder(":raised_hand: `").append(run.getWorkflowId()).append("`");
    if (progress.runbook() != null && !progress.runbook().isBlank()) {
      text.append(" (").append(SlackReply.escape(progress.runbook()));
      if (progress.cluster() != null && !progress.cluster().isBlank())
        text.append(", cluster ").append(SlackReply.escape(progress.cluster()));
      text.append(")");
    }
    text.append(" waits for approval");
    if (progress.message() != null && !progress.message().isBlank())
      text.append(": ").append(SlackReply.escape(progress.message()));
    if (!run.getWorkflowId().matches(SlackCommand.NAME)) {
      // a button could not name it (an id typed in the Web UI with spaces, say): text only
      text.append("\nits id cannot be carried by a button: approve it in the Temporal Web UI or")
          .append(" with POST /api/v1/runbooks/{id}/approve");
      return chat.post(new SlackMessage(channel, text.toString(), null, null)).isPresent();
    }
    String message = text.toString();
    return chat.post(
            new SlackMessage(
                channel,
                message,
                null,
                SlackButtons.approval(
                    message, new SlackButtons.Target(run.getWorkflowId(), run.getRunId()))))
        .isPresent();
  }
}
