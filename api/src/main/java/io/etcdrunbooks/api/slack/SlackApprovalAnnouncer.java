package io.etcdrunbooks.api.slack;

import io.etcdrunbooks.api.RunbookList;
import io.etcdrunbooks.runtime.visibility.RunningProgress;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.Progress;
import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Requires;
import io.temporal.api.common.v1.WorkflowExecution;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionDescription;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowTargetOptions;
import jakarta.annotation.PreDestroy;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
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
 * is first seen waiting (a fleet's wave waiting for its approval included), its buttons replaced
 * (chat.update) by what became of it once it waits no more, wherever it was approved or cancelled;
 * runbooks started from a Slack command get their buttons in their own thread instead. A click is
 * handled like any other ({@link SlackInteractionHandler}): verified, the clicker's role and
 * clusters checked, audited. Reads Temporal every {@code progress-interval-seconds} on a thread of
 * its own.
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

  /** Messages with buttons, by run, while the run waits: their buttons are taken off after. */
  private final Map<String, Posted> withButtons = new HashMap<>();

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
      if (announced.contains(key)) {
        if (withButtons.containsKey(key)) retireIfDone(run, key);
        continue;
      }
      if (followed.follows(run.getWorkflowId())) continue;
      Progress progress = progressOf(run);
      if (progress == null || progress.phase() != Phase.AWAITING_APPROVAL) continue;
      Optional<String> ts = announce(run, progress);
      if (ts.isPresent()) {
        announced.add(key);
        attempts.remove(key);
        if (!ts.get().isEmpty())
          withButtons.put(key, new Posted(ts.get(), headline(run, progress)));
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
    // no longer listed as waiting: approved, cancelled or ended since
    for (String key : List.copyOf(withButtons.keySet())) {
      if (!open.contains(key)) retire(key, execution(key));
    }
    announced.retainAll(open);
    attempts.keySet().retainAll(open);
  }

  /** A run still listed whose buttons were posted: retired once it waits no more. */
  private void retireIfDone(WorkflowExecution run, String key) {
    Progress progress = progressOf(run);
    // unknown (its worker busy, say): looked at again next time
    if (progress != null && progress.phase() != Phase.AWAITING_APPROVAL) retire(key, run);
  }

  /**
   * Replaces a message's buttons, once its run waits no more, by what became of it: the last
   * control (who approved or cancelled it, and how) and where the run is. Tried once.
   */
  private void retire(String key, WorkflowExecution run) {
    Posted posted = withButtons.remove(key);
    String outcome;
    try {
      WorkflowStub stub =
          client.newUntypedWorkflowStub(
              WorkflowTargetOptions.newBuilder().setWorkflowExecution(run).build());
      WorkflowExecutionDescription description = stub.describe();
      List<?> controls = (List<?>) description.getMemo(RunbookWorkflow.CONTROLS_MEMO, List.class);
      String last =
          controls == null || controls.isEmpty()
              ? "no control recorded"
              : String.valueOf(controls.get(controls.size() - 1));
      outcome = "%s; the run is %s".formatted(last, where(stub, description.getStatus()));
    } catch (RuntimeException e) {
      outcome = "see `/etcd status " + run.getWorkflowId() + "`";
    }
    String text =
        ":white_check_mark: %s no longer waits for approval: %s"
            .formatted(posted.headline(), SlackReply.escape(outcome));
    if (!chat.update(SlackUpdate.textOnly(channel, posted.ts(), text))) {
      LOG.warn(
          "slack approvals: the buttons for {} could not be taken off its message in {}; a click"
              + " on them is refused, since the run no longer waits",
          run.getWorkflowId(),
          channel);
    }
  }

  private static String where(WorkflowStub stub, WorkflowExecutionStatus status) {
    if (status != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING)
      return status.name().replace("WORKFLOW_EXECUTION_STATUS_", "").toLowerCase(Locale.ROOT);
    Progress progress = stub.query("progress", Progress.class);
    return "in " + progress.phase();
  }

  private static WorkflowExecution execution(String key) {
    int slash = key.lastIndexOf('/');
    return WorkflowExecution.newBuilder()
        .setWorkflowId(key.substring(0, slash))
        .setRunId(key.substring(slash + 1))
        .build();
  }

  /** A message with buttons: its ts, and the run it names, for its replacement. */
  private record Posted(String ts, String headline) {}

  /** Null when it has ended or its worker is busy: looked at again next time. */
  private Progress progressOf(WorkflowExecution run) {
    return RunningProgress.of(client, run).progress();
  }

  /** "`id` (UpgradeCluster, cluster sandbox)". */
  private static String headline(WorkflowExecution run, Progress progress) {
    StringBuilder text = new StringBuilder("`").append(run.getWorkflowId()).append("`");
    if (progress.runbook() != null && !progress.runbook().isBlank()) {
      text.append(" (").append(SlackReply.escape(progress.runbook()));
      if (progress.cluster() != null && !progress.cluster().isBlank())
        text.append(", cluster ").append(SlackReply.escape(progress.cluster()));
      text.append(")");
    }
    return text.toString();
  }

  /**
   * Posts the run's message: the ts of a message with buttons, "" for one without (its id cannot be
   * carried by a button), empty when it was not posted.
   */
  private Optional<String> announce(WorkflowExecution run, Progress progress) {
    StringBuilder text =
        new StringBuilder(":raised_hand: ")
            .append(headline(run, progress))
            .append(" waits for approval");
    if (progress.message() != null && !progress.message().isBlank())
      text.append(": ").append(SlackReply.escape(progress.message()));
    if (!run.getWorkflowId().matches(SlackCommand.NAME)) {
      // a button could not name it (an id typed in the Web UI with spaces, say): text only
      text.append("\nits id cannot be carried by a button: approve it in the Temporal Web UI or")
          .append(" with POST /api/v1/runbooks/{id}/approve");
      return chat.post(new SlackMessage(channel, text.toString(), null, null)).map(ts -> "");
    }
    String message = text.toString();
    return chat.post(
        new SlackMessage(
            channel,
            message,
            null,
            SlackButtons.approval(
                message, new SlackButtons.Target(run.getWorkflowId(), run.getRunId()))));
  }
}
