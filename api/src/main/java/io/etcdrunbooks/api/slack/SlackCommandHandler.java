package io.etcdrunbooks.api.slack;

import static io.etcdrunbooks.api.slack.SlackReply.escape;

import io.etcdrunbooks.api.ApprovalRules;
import io.etcdrunbooks.api.RunbookClusters;
import io.etcdrunbooks.api.RunbookControls;
import io.etcdrunbooks.api.RunbookStarter;
import io.etcdrunbooks.api.auth.Caller;
import io.etcdrunbooks.inventory.InvalidClusterException;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.UnknownClusterException;
import io.etcdrunbooks.workflows.RunbookCatalog;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.fleet.FleetUpgradeRequest;
import io.etcdrunbooks.workflows.maintenance.MaintenanceRequest;
import io.etcdrunbooks.workflows.recover.RecoverQuorumRequest;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberRequest;
import io.etcdrunbooks.workflows.scale.ScaleClusterRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowException;
import io.temporal.client.WorkflowNotFoundException;
import jakarta.inject.Singleton;
import java.net.URI;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one verified slash command for the Slack user who typed it: checks that the user is mapped
 * to a role that may do it on that cluster, then reads the status, starts the runbook or approves
 * it, and answers at once. A refusal is an ephemeral reply (Slack shows only the text of a 200
 * answer) saying what is missing; it starts nothing. Changes and refusals go to the audit log.
 */
@Singleton
public final class SlackCommandHandler {

  private static final Logger AUDIT = LoggerFactory.getLogger("etcd-runbooks.audit");
  private static final Logger LOG = LoggerFactory.getLogger(SlackCommandHandler.class);

  private final SlackConfig config;
  private final SlackUsers users;
  private final ApprovalRules approvals;
  private final RunbookControls controls;
  private final RunbookStarter starter;
  private final WorkflowClient client;
  private final InventorySource inventory;
  private final SlackStatusReader status;
  private final SlackProgressFollower follower;
  private final RunbookClusters runbooks;
  private final SlackFleetStatus fleets;

  SlackCommandHandler(
      SlackConfig config,
      RunbookStarter starter,
      WorkflowClient client,
      InventorySource inventory,
      SlackStatusReader status,
      SlackProgressFollower follower,
      RunbookClusters runbooks,
      ApprovalRules approvals,
      RunbookControls controls) {
    this.approvals = approvals;
    this.controls = controls;
    this.config = config;
    this.users = config.slackUsers();
    this.starter = starter;
    this.client = client;
    this.inventory = inventory;
    this.status = status;
    this.follower = follower;
    this.runbooks = runbooks;
    this.fleets = new SlackFleetStatus(client);
  }

  public SlackReply handle(SlackForm form) {
    SlackCommand command = SlackCommand.parse(form.text());
    Optional<SlackUsers.SlackUser> user = users.find(form.userId());
    if (command instanceof SlackCommand.Help) return help(form, user);
    if (command instanceof SlackCommand.Invalid invalid) {
      return SlackReply.ephemeral(
          escape(invalid.problem() + "\n" + SlackCommand.usage(form.command())));
    }
    if (user.isEmpty()) {
      return refuse(
          form,
          SlackUsers.label(form.userId(), form.userName()),
          "Slack user "
              + escape(form.userId())
              + " has no role in etcd-runbooks: ask an admin to add it under runbooks.slack.users (see docs/configuration.md)."
              + nothingStarted(command));
    }
    Caller who = user.get().asCaller(form.userName());
    String verb = form.command() + " " + verbOf(command);
    if (!who.role().atLeast(command.requiredRole())) {
      return refuse(
          form,
          who.name(),
          "you have role "
              + name(who.role().name())
              + "; "
              + verb
              + " needs "
              + name(command.requiredRole().name())
              + "."
              + nothingStarted(command));
    }
    Optional<String> clusterRefusal = clusterRefusal(command, who);
    if (clusterRefusal.isPresent())
      return refuse(form, who.name(), clusterRefusal.get() + nothingStarted(command));
    try {
      return run(command, who, form);
    } catch (RunbookStarter.RunbookAlreadyRunning e) {
      return refuse(form, who.name(), escape(e.getMessage()));
    } catch (InvalidClusterException e) { // only that cluster's entry, which this user may act on
      return refuse(form, who.name(), escape(e.getMessage()) + "." + nothingStarted(command));
    } catch (
        UnknownClusterException
            e) { // its message lists the whole inventory, which this user may not see
      return refuse(
          form,
          who.name(),
          "no cluster `" + escape(e.name()) + "` in the inventory." + nothingStarted(command));
    } catch (
        IllegalArgumentException
            e) { // a bad version, an unknown member, a state the runbook would refuse
      return refuse(form, who.name(), escape(e.getMessage()) + "." + nothingStarted(command));
    } catch (WorkflowNotFoundException e) {
      return refuse(
          form,
          who.name(),
          "no runbook `"
              + escape(e.getExecution().getWorkflowId())
              + "` is running (a finished"
              + " runbook cannot be approved)");
    } catch (WorkflowException | io.grpc.StatusRuntimeException e) {
      LOG.warn("slack {}: Temporal did not answer: {}", verb, e.toString());
      return refuse(
          form,
          who.name(),
          "Temporal did not answer ("
              + e.getClass().getSimpleName()
              + "), so it is not known"
              + " whether anything started: try "
              + form.command()
              + " status, or again in a moment");
    } catch (RuntimeException e) {
      LOG.error("slack {} failed", verb, e);
      return refuse(
          form,
          who.name(),
          "the command failed ("
              + e.getClass().getSimpleName()
              + "); the etcd-runbooks log has"
              + " the details");
    }
  }

  private SlackReply run(SlackCommand command, Caller who, SlackForm form) {
    String mention = "<@" + form.userId().toUpperCase(Locale.ROOT) + ">";
    if (command instanceof SlackCommand.Status s) {
      if (!inventory.get().clusters().containsKey(s.cluster()) && fleets.exists(s.cluster())) {
        return SlackReply.ephemeral(fleets.describe(s.cluster()));
      }
      inventory.get().cluster(s.cluster());
      return status.read(s.cluster(), responseUrl(form));
    }
    if (command instanceof SlackCommand.Fleet f) {
      RunbookStarter.Started started =
          starter.start(
              RunbookCatalog.FLEET_UPGRADE,
              FleetUpgradeRequest.of(f.fleet(), f.isSelector() ? f.selector() : "", f.version())
                  .withApprovalBetweenWaves(),
              who.name());
      return started(
          form,
          who,
          started,
          mention
              + " started the upgrade of fleet *"
              + f.fleet()
              + "* to "
              + f.version()
              + ": every cluster checked first, then a canary, then waves by size, each approved"
              + " here; "
              + form.command()
              + " status "
              + f.fleet()
              + " shows where it is");
    }
    if (command instanceof SlackCommand.Upgrade u) {
      RunbookStarter.Started started =
          starter.start(
              RunbookCatalog.UPGRADE,
              UpgradeRequest.to(u.cluster(), u.version(), RunbookOptions.defaults()),
              who.name());
      return started(
          form,
          who,
          started,
          mention + " started the upgrade of *" + u.cluster() + "* to " + u.version());
    }
    if (command instanceof SlackCommand.Replace r) {
      RunbookStarter.Started started =
          starter.start(
              RunbookCatalog.REPLACE_MEMBER,
              ReplaceMemberRequest.onSameHost(r.cluster(), r.member(), false, who.name()),
              who.name());
      return started(
          form,
          who,
          started,
          mention
              + " started the replacement of member *"
              + r.member()
              + "* of *"
              + r.cluster()
              + "* (on its own host)");
    }
    if (command instanceof SlackCommand.Maintenance m) {
      RunbookStarter.Started started =
          starter.start(
              RunbookCatalog.MAINTENANCE,
              MaintenanceRequest.of(m.cluster(), RunbookOptions.defaults()),
              who.name());
      return started(
          form,
          who,
          started,
          mention + " started the maintenance of *" + m.cluster() + "* (defragmentation)");
    }
    if (command instanceof SlackCommand.Scale sc) {
      int members = inventory.get().cluster(sc.cluster()).members().size();
      if (sc.size() > members) {
        throw new IllegalArgumentException(
            ("growing %s from %d to %d members needs the new members' hosts and URLs: POST"
                    + " /api/v1/clusters/%s/scale with newMembers (docs/runbooks/scale-cluster.md)")
                .formatted(sc.cluster(), members, sc.size(), sc.cluster()));
      }
      RunbookStarter.Started started =
          starter.start(
              RunbookCatalog.SCALE,
              ScaleClusterRequest.shrinking(sc.cluster(), sc.size(), RunbookOptions.defaults()),
              who.name());
      return started(
          form,
          who,
          started,
          mention + " started scaling *" + sc.cluster() + "* to " + sc.size() + " members");
    }
    if (command instanceof SlackCommand.RecoverQuorum rq) {
      RunbookStarter.Started started =
          starter.start(
              RunbookCatalog.RECOVER_QUORUM,
              RecoverQuorumRequest.of(rq.cluster(), RunbookOptions.defaults())
                  .acknowledgingDataLoss(),
              who.name());
      return started(
          form,
          who,
          started,
          mention
              + " started the recovery of quorum of *"
              + rq.cluster()
              + "*; it shows what will be lost, then waits for an admin's approve");
    }
    SlackCommand.Approve a = (SlackCommand.Approve) command;
    Optional<String> refused = approvals.whyNot(a.workflowId(), who);
    if (refused.isPresent()) {
      audit(who, form, "refused to approve " + a.workflowId() + ": " + refused.get());
      return SlackReply.ephemeral("Not approved: " + refused.get() + ".");
    }
    // Untyped, as the HTTP API does it: every runbook takes the approveRun update.
    try {
      controls.approve(client.newUntypedWorkflowStub(a.workflowId()), who, null);
    } catch (RunbookControls.Refused e) {
      audit(who, form, "refused to approve " + a.workflowId() + ": " + e.getMessage());
      return SlackReply.ephemeral("Not approved: " + e.getMessage() + ".");
    }
    audit(who, form, "approved " + a.workflowId());
    return SlackReply.inChannel(
        mention + " approved `" + a.workflowId() + "`." + follow(a.workflowId(), form));
  }

  private SlackReply started(
      SlackForm form, Caller who, RunbookStarter.Started started, String what) {
    audit(who, form, "started " + started.workflowId());
    return SlackReply.inChannel(
        what + ": runbook `" + started.workflowId() + "`." + follow(started.workflowId(), form));
  }

  private String follow(String workflowId, SlackForm form) {
    Optional<URI> url = responseUrl(form);
    if (url.isEmpty()) {
      return " (Progress is not posted here: the command's response_url is not under runbooks.slack.response-url-prefix.)";
    }
    if (!follower.follow(workflowId, url.get(), form.channelId())) {
      return " (Too many runbooks are followed already: GET /api/v1/runbooks/"
          + workflowId
          + " follows this one.)";
    }
    return follower.postsInThread(form.channelId())
        ? " Progress follows in a thread of this channel as its phases complete."
        : " Progress follows here as its phases complete.";
  }

  /** Why the user may not act on the cluster of the command, or empty when it may. */
  private Optional<String> clusterRefusal(SlackCommand command, Caller who) {
    if (who.clusters().isEmpty()) return Optional.empty();
    if (command instanceof SlackCommand.Fleet
        || (command instanceof SlackCommand.Status s
            && !inventory.get().clusters().containsKey(s.cluster()))) {
      return Optional.of(
          "you may act on clusters "
              + who.clusters()
              + "; a fleet reaches every cluster, so only users allowed on all of them start or"
              + " read one.");
    }
    Optional<String> cluster =
        command
            .namedCluster()
            .or(
                () ->
                    command instanceof SlackCommand.Approve a
                        ? runbooks.clusterOf(a.workflowId())
                        : Optional.empty());
    if (cluster.isEmpty()) {
      // fail closed, as the HTTP API does: a user limited to some clusters acts on no runbook whose
      // cluster is unknown
      return Optional.of(
          "you may act on clusters "
              + who.clusters()
              + ", and the cluster of runbook `"
              + escape(command instanceof SlackCommand.Approve a ? a.workflowId() : verbOf(command))
              + "` cannot be told (no such runbook, or its input names no cluster).");
    }
    return who.mayActOn(cluster.get())
        ? Optional.empty()
        : Optional.of(
            "you may act on clusters " + who.clusters() + ", not on *" + cluster.get() + "*.");
  }

  private SlackReply help(SlackForm form, Optional<SlackUsers.SlackUser> user) {
    String you =
        user.map(
                u ->
                    "You have role "
                        + name(u.role().name())
                        + (u.clusters().isEmpty()
                            ? " on every cluster."
                            : " on clusters " + u.clusters() + "."))
            .orElse(
                "You ("
                    + escape(form.userId())
                    + ") have no role yet: an admin adds you under runbooks.slack.users.");
    return SlackReply.ephemeral(escape(SlackCommand.usage(form.command())) + "\n" + you);
  }

  private Optional<URI> responseUrl(SlackForm form) {
    return SlackResponseUrl.accept(form.responseUrl(), config.responseUrlPrefix());
  }

  private static SlackReply refuse(SlackForm form, String who, String why) {
    AUDIT.warn(
        "who={} refused slack {} '{}' -> 200 ephemeral: {}",
        who,
        form.command(),
        printable(form.text()),
        why);
    return SlackReply.ephemeral(why);
  }

  private static void audit(Caller who, SlackForm form, String outcome) {
    AUDIT.info(
        "who={} role={} slack {} '{}' -> {}",
        who.name(),
        name(who.role().name()),
        form.command(),
        printable(form.text()),
        outcome);
  }

  private static String nothingStarted(SlackCommand command) {
    return command instanceof SlackCommand.Status ? "" : " Nothing was started.";
  }

  private static String verbOf(SlackCommand command) {
    return command.getClass().getSimpleName().toLowerCase(Locale.ROOT);
  }

  private static String name(String role) {
    return role.toLowerCase(Locale.ROOT);
  }

  /** Text a user typed, safe for one log line. */
  static String printable(String text) {
    String s = text == null ? "" : text.replaceAll("\\p{Cntrl}", "?");
    return s.length() <= 200 ? s : s.substring(0, 200) + "...";
  }
}
