package io.etcdrunbooks.api.slack;

import static io.etcdrunbooks.api.slack.SlackReply.escape;

import io.etcdrunbooks.api.ApprovalRules;
import io.etcdrunbooks.api.RunbookClusters;
import io.etcdrunbooks.api.RunbookControls;
import io.etcdrunbooks.api.auth.Caller;
import io.etcdrunbooks.api.auth.Role;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.Progress;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowException;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowTargetOptions;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.net.URI;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a verified click on Approve or Cancel for the Slack user who clicked. Slack wants its answer
 * within 3 seconds and asking Temporal can take longer, so the click is taken at once and its
 * outcome posted to the click's response URL: the message clicked is replaced by who approved or
 * cancelled it, and a refusal (user not mapped, role too low, cluster not theirs, run ended or past
 * its approval, second-person rule) is a message only the clicker sees, saying why; it changes
 * nothing. The click acts on the run its button names, never on a later run of the same id. The
 * same rules as {@code /etcd approve} and the API's approve route apply ({@link ApprovalRules}).
 */
@Singleton
public final class SlackInteractionHandler {

  private static final Logger AUDIT = LoggerFactory.getLogger("etcd-runbooks.audit");
  private static final Logger LOG = LoggerFactory.getLogger(SlackInteractionHandler.class);

  private final SlackConfig config;
  private final SlackUsers users;
  private final ApprovalRules approvals;
  private final RunbookControls controls;
  private final WorkflowClient client;
  private final RunbookClusters runbooks;
  private final SlackPoster poster;
  private final ThreadPoolExecutor clicks =
      new ThreadPoolExecutor(
          2,
          2,
          60,
          TimeUnit.SECONDS,
          new ArrayBlockingQueue<>(16),
          r -> {
            Thread thread = new Thread(r, "slack-click");
            thread.setDaemon(true);
            return thread;
          });

  SlackInteractionHandler(
      SlackConfig config,
      ApprovalRules approvals,
      RunbookControls controls,
      WorkflowClient client,
      RunbookClusters runbooks,
      SlackPoster poster) {
    this.config = config;
    this.users = config.slackUsers();
    this.approvals = approvals;
    this.controls = controls;
    this.client = client;
    this.runbooks = runbooks;
    this.poster = poster;
    clicks.allowCoreThreadTimeOut(true);
  }

  /**
   * Takes a click: empty when it is under way (its outcome follows on the response URL), or the
   * refusal to answer with at once when too many clicks are.
   */
  public Optional<SlackReply> accept(SlackInteraction click) {
    try {
      clicks.execute(() -> answer(click));
      return Optional.empty();
    } catch (RejectedExecutionException busy) {
      return Optional.of(
          refuse(
              click,
              SlackUsers.label(click.userId(), click.userName()),
              "too many clicks are being handled: click again in a moment. Nothing changed."));
    }
  }

  @PreDestroy
  void close() {
    clicks.shutdownNow();
  }

  private void answer(SlackInteraction click) {
    SlackReply outcome = outcome(click);
    Optional<URI> url = SlackResponseUrl.accept(click.responseUrl(), config.responseUrlPrefix());
    if (url.isEmpty()) {
      LOG.warn(
          "slack: the outcome of a click on {} cannot be told: its response_url is not under"
              + " runbooks.slack.response-url-prefix",
          click.target().workflowId());
      return;
    }
    poster.post(url.get(), outcome);
  }

  /** Does what the click asks, if the clicker may: the message to post on its response URL. */
  SlackReply outcome(SlackInteraction click) {
    String workflowId = click.target().workflowId();
    Optional<SlackUsers.SlackUser> user = users.find(click.userId());
    if (user.isEmpty()) {
      return refuse(
          click,
          SlackUsers.label(click.userId(), click.userName()),
          "Slack user "
              + escape(click.userId())
              + " has no role in etcd-runbooks: ask an admin to add it under runbooks.slack.users"
              + " (see docs/configuration.md). Nothing changed.");
    }
    Caller who = user.get().asCaller(click.userName());
    Role needed = click.action().apiAction().role();
    if (!who.role().atLeast(needed)) {
      return refuse(
          click,
          who.name(),
          "you have role "
              + name(who.role())
              + "; "
              + click.action().label()
              + " needs "
              + name(needed)
              + ". Nothing changed.");
    }
    try {
      Optional<String> refused = whyNot(click, who);
      if (refused.isPresent()) return refuse(click, who.name(), refused.get());
      WorkflowStub run = stub(click.target());
      String mention = "<@" + click.userId().toUpperCase(Locale.ROOT) + ">";
      if (click.action() == SlackButtons.Action.APPROVE) {
        controls.approve(run, who, null);
        audit(click, who, "approved " + workflowId);
        return SlackReply.inChannel(
                ":white_check_mark: " + mention + " approved `" + workflowId + "`.")
            .replacingOriginal(true);
      }
      run.cancel("cancelled through Slack by " + who.name());
      audit(click, who, "cancelled " + workflowId);
      return SlackReply.inChannel(
              ":no_entry: "
                  + mention
                  + " cancelled `"
                  + workflowId
                  + "`; it stops before its first change.")
          .replacingOriginal(true);
    } catch (RunbookControls.Refused e) {
      return refuse(click, who.name(), "Not approved: " + e.getMessage() + ". Nothing changed.");
    } catch (WorkflowNotFoundException e) {
      return refuse(
          click,
          who.name(),
          "the run of `" + workflowId + "` this button was posted for is gone. Nothing changed.");
    } catch (WorkflowException | io.grpc.StatusRuntimeException e) {
      LOG.warn("slack click on {}: Temporal did not answer: {}", workflowId, e.toString());
      return refuse(
          click,
          who.name(),
          "Temporal did not answer ("
              + e.getClass().getSimpleName()
              + "), so it is not known whether `"
              + workflowId
              + "` got the "
              + click.action().label()
              + ": click again in a moment, or look at GET /api/v1/runbooks/"
              + workflowId);
    } catch (RuntimeException e) {
      LOG.error("slack click on {} failed", workflowId, e);
      return refuse(
          click,
          who.name(),
          "the click failed ("
              + e.getClass().getSimpleName()
              + "); the etcd-runbooks log has the details");
    }
  }

  /** Why the clicker may not act on this run now, or empty when they may. */
  private Optional<String> whyNot(SlackInteraction click, Caller who) {
    SlackButtons.Target target = click.target();
    if (who.isLimited()) {
      Optional<String> cluster = runbooks.clusterOf(target.workflowId(), target.runId());
      if (cluster.isEmpty() || !who.mayActOn(cluster.get())) {
        return Optional.of(
            "you may act on clusters "
                + who.clusters()
                + (cluster.isEmpty()
                    ? ", and the cluster of `" + target.workflowId() + "` cannot be told"
                    : ", not on *" + cluster.get() + "*")
                + ". Nothing changed.");
      }
    }
    WorkflowStub run = stub(target);
    WorkflowExecutionStatus status = run.describe().getStatus();
    if (status != WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING) {
      return Optional.of(
          "the run of `"
              + target.workflowId()
              + "` this button was posted for has ended ("
              + status.name().replace("WORKFLOW_EXECUTION_STATUS_", "").toLowerCase(Locale.ROOT)
              + "). Nothing changed.");
    }
    Progress progress = run.query("progress", Progress.class);
    Phase phase = progress == null ? null : progress.phase();
    if (phase != Phase.AWAITING_APPROVAL) {
      return Optional.of(
          "`"
              + target.workflowId()
              + "` is no longer waiting for approval (phase "
              + (phase == null ? "unknown" : phase.name())
              + "). Nothing changed.");
    }
    if (click.action() == SlackButtons.Action.APPROVE) {
      return approvals.whyNot(target.workflowId(), who).map(why -> "Not approved: " + why + ".");
    }
    return Optional.empty();
  }

  private WorkflowStub stub(SlackButtons.Target target) {
    return client.newUntypedWorkflowStub(
        WorkflowTargetOptions.newBuilder()
            .setWorkflowId(target.workflowId())
            .setRunId(target.runId())
            .build());
  }

  private static SlackReply refuse(SlackInteraction click, String who, String why) {
    AUDIT.warn(
        "who={} refused slack click {} on {} run {} -> ephemeral: {}",
        who,
        click.action().label(),
        click.target().workflowId(),
        click.target().runId(),
        why);
    return SlackReply.ephemeral(why).replacingOriginal(false);
  }

  private static void audit(SlackInteraction click, Caller who, String outcome) {
    AUDIT.info(
        "who={} role={} slack click {} on {} run {} -> {}",
        who.name(),
        name(who.role()),
        click.action().label(),
        click.target().workflowId(),
        click.target().runId(),
        outcome);
  }

  private static String name(Role role) {
    return role.name().toLowerCase(Locale.ROOT);
  }
}
