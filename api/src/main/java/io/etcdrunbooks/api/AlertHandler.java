package io.etcdrunbooks.api;

import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.workflows.RunbookCatalog;
import io.etcdrunbooks.workflows.activities.EtcdActivities;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberRequest;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberWorkflow;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionDescription;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.client.WorkflowStub;
import jakarta.inject.Singleton;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides what one Alertmanager alert does: a firing member-down alert starts the ReplaceMember
 * runbook of that member, a resolved one tells a running runbook that the alert is gone; anything
 * else is ignored with its reason. Before a start, three checks: the member's replacement runs
 * already ({@code already-running}); the same alert (by fingerprint) started a runbook lately,
 * which has ended since ({@code duplicate}); etcd says now that the member is healthy ({@code
 * member-healthy}). Every outcome about an inventory member is written to the audit log.
 */
@Singleton
final class AlertHandler {

  private static final Logger LOG = LoggerFactory.getLogger(AlertHandler.class);
  private static final Logger AUDIT = LoggerFactory.getLogger("etcd-runbooks.audit");

  private final AlertsConfig config;
  private final InventorySource inventory;
  private final RunbookStarter starter;
  private final WorkflowClient client;
  private final EtcdActivities etcd;
  private final AlertFingerprints fingerprints;

  AlertHandler(
      AlertsConfig config,
      InventorySource inventory,
      RunbookStarter starter,
      WorkflowClient client,
      EtcdActivities etcd,
      AlertFingerprints fingerprints) {
    this.config = config;
    this.inventory = inventory;
    this.starter = starter;
    this.client = client;
    this.etcd = etcd;
    this.fingerprints = fingerprints;
  }

  AlertResult handle(AlertmanagerPayload.Alert alert, String groupStatus) {
    AlertResult result = decide(alert, groupStatus);
    String fingerprint = printable(alert == null ? null : alert.fingerprint());
    LOG.info(
        "alertmanager alert {} cluster={} member={} fingerprint={}: {}{}{}",
        printable(result.alertname()),
        printable(result.cluster()),
        printable(result.member()),
        fingerprint,
        result.outcome(),
        result.workflowId() == null ? "" : " " + result.workflowId(),
        result.reason() == null ? "" : " (" + printable(result.reason()) + ")");
    if (!AlertResult.IGNORED.equals(result.outcome())) {
      AUDIT.info(
          "who=alertmanager cluster={} member={} workflow={} alert {} fingerprint={} -> {}",
          printable(result.cluster()),
          printable(result.member()),
          result.workflowId() == null ? "-" : result.workflowId(),
          printable(result.alertname()),
          fingerprint,
          result.outcome());
    }
    return result;
  }

  private AlertResult decide(AlertmanagerPayload.Alert alert, String groupStatus) {
    if (alert == null) {
      return new AlertResult(
          null, null, null, AlertResult.IGNORED, null, "the alerts list holds an empty entry");
    }
    String alertname = alert.label("alertname");
    String clusterLabel = config.clusterLabelFor(alert.labels());
    String cluster = alert.label(clusterLabel);
    String member = alert.label(config.memberLabel());
    if (alertname == null || !config.memberDownAlerts().contains(alertname)) {
      return new AlertResult(
          alertname,
          cluster,
          member,
          AlertResult.IGNORED,
          null,
          "alertname '"
              + alertname
              + "' is not one of runbooks.alerts.member-down-alerts "
              + config.memberDownAlerts());
    }
    AlertTargets.Resolution resolution;
    try {
      resolution =
          AlertTargets.resolve(inventory.get(), alert.labels(), clusterLabel, config.memberLabel());
    } catch (RuntimeException e) {
      return new AlertResult(
          alertname,
          cluster,
          member,
          AlertResult.ERROR,
          null,
          "cannot read the inventory: " + e.getMessage());
    }
    if (resolution instanceof AlertTargets.NotFound notFound) {
      return new AlertResult(
          alertname, cluster, member, AlertResult.IGNORED, null, notFound.reason());
    }
    AlertTargets.Found target = (AlertTargets.Found) resolution;
    String status = alert.status() != null ? alert.status() : groupStatus;
    if ("firing".equals(status)) {
      return start(alertname, target, alert.fingerprint());
    }
    if ("resolved".equals(status)) {
      fingerprints.resolved(alert.fingerprint());
      return signalResolved(alertname, target);
    }
    return new AlertResult(
        alertname,
        target.cluster(),
        target.member(),
        AlertResult.IGNORED,
        null,
        "status '" + status + "' is neither firing nor resolved");
  }

  private AlertResult start(String alertname, AlertTargets.Found target, String fingerprint) {
    if (replacementRunning(target)) {
      return new AlertResult(
          alertname,
          target.cluster(),
          target.member(),
          AlertResult.ALREADY_RUNNING,
          ReplaceMemberWorkflow.workflowId(target.cluster()),
          null);
    }
    Optional<AlertFingerprints.Started> earlier = fingerprints.startedWithin(fingerprint);
    if (earlier.isPresent()) {
      return duplicate(alertname, target, fingerprint, earlier.get());
    }
    Optional<MemberStatus> healthy = healthyNow(target);
    if (healthy.isPresent()) {
      return new AlertResult(
          alertname,
          target.cluster(),
          target.member(),
          AlertResult.MEMBER_HEALTHY,
          null,
          "member '"
              + target.member()
              + "' of cluster '"
              + target.cluster()
              + "' is healthy now (etcd "
              + healthy.get().serverVersion()
              + ", answers and sees a leader): nothing to replace. A stale or flapping alert? If the member must go all the same,"
              + " POST /api/v1/clusters/"
              + target.cluster()
              + "/replace-member {\"failedMember\":\""
              + target.member()
              + "\",\"force\":true}");
    }
    boolean approval = config.policyFor(target.cluster()) == AlertsConfig.Policy.APPROVAL;
    ReplaceMemberRequest request =
        ReplaceMemberRequest.onSameHost(
                target.cluster(),
                target.member(),
                approval,
                "alertmanager: " + alertname + " (fingerprint " + fingerprint + ")")
            .confirmingDownFor(approval ? 0 : config.autoDownMinutes() * 60);
    try {
      RunbookStarter.Started started =
          starter.start(RunbookCatalog.REPLACE_MEMBER, request, "alertmanager");
      fingerprints.started(fingerprint, started.workflowId(), started.runId());
      return new AlertResult(
          alertname,
          target.cluster(),
          target.member(),
          AlertResult.STARTED,
          started.workflowId(),
          approval
              ? "waits for POST /api/v1/runbooks/"
                  + started.workflowId()
                  + "/approve after preflight"
              : null);
    } catch (RunbookStarter.RunbookAlreadyRunning e) {
      if (ReplaceMemberWorkflow.TYPE.equals(e.runningType())
          && target.member().equals(e.member())) {
        return new AlertResult(
            alertname,
            target.cluster(),
            target.member(),
            AlertResult.ALREADY_RUNNING,
            e.workflowId(),
            null);
      }
      // another change of the cluster runs: answered with 503, so Alertmanager sends the alert
      // again later
      return new AlertResult(
          alertname,
          target.cluster(),
          target.member(),
          AlertResult.BUSY,
          e.workflowId(),
          e.getMessage());
    } catch (IllegalArgumentException e) {
      return new AlertResult(
          alertname, target.cluster(), target.member(), AlertResult.IGNORED, null, e.getMessage());
    } catch (RuntimeException e) {
      return error(alertname, target, "cannot start the runbook on Temporal", e);
    }
  }

  private AlertResult duplicate(
      String alertname,
      AlertTargets.Found target,
      String fingerprint,
      AlertFingerprints.Started earlier) {
    return new AlertResult(
        alertname,
        target.cluster(),
        target.member(),
        AlertResult.DUPLICATE,
        earlier.workflowId(),
        "this alert (fingerprint "
            + fingerprint
            + ") started runbook "
            + earlier.workflowId()
            + " (run "
            + earlier.runId()
            + ") at "
            + earlier.at()
            + "; it starts no other within runbooks.alerts.dedupe-minutes ("
            + fingerprints.window().toMinutes()
            + "), even once that runbook has ended, unless it resolves first. Follow it"
            + " with GET /api/v1/runbooks/"
            + earlier.workflowId()
            + ", or start a replacement with POST /api/v1/clusters/"
            + target.cluster()
            + "/replace-member");
  }

  /**
   * A ReplaceMember runbook of this member runs now; false when none does or Temporal cannot tell
   * (the start will).
   */
  private boolean replacementRunning(AlertTargets.Found target) {
    try {
      return replaces(
          client
              .newUntypedWorkflowStub(ReplaceMemberWorkflow.workflowId(target.cluster()))
              .describe(),
          target);
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static boolean replaces(
      WorkflowExecutionDescription description, AlertTargets.Found target) {
    return description.getStatus() == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING
        && ReplaceMemberWorkflow.TYPE.equals(description.getWorkflowType())
        && target.member().equals(description.getMemo(RunbookStarter.MEMBER, String.class));
  }

  /**
   * The member's status when etcd says, read now, that it answers and is healthy; empty when it is
   * not, or when the cluster cannot be read (the runbook's preflight looks again).
   */
  private Optional<MemberStatus> healthyNow(AlertTargets.Found target) {
    try {
      return etcd.discover(new ClusterRef(target.cluster()))
          .member(target.member())
          .filter(m -> m.reachable() && m.healthy());
    } catch (RuntimeException e) {
      LOG.warn(
          "cannot read the health of member {} of cluster {} before replacing it; its replacement starts, and its"
              + " preflight looks again: {}",
          target.member(),
          target.cluster(),
          e.toString());
      return Optional.empty();
    }
  }

  private AlertResult signalResolved(String alertname, AlertTargets.Found target) {
    String id = ReplaceMemberWorkflow.workflowId(target.cluster());
    try {
      WorkflowStub running = client.newUntypedWorkflowStub(id);
      if (!replaces(running.describe(), target)) {
        return new AlertResult(
            alertname,
            target.cluster(),
            target.member(),
            AlertResult.NOTHING_RUNNING,
            null,
            "no ReplaceMember runbook runs for this member");
      }
      // Signalling the id reaches its latest run only while it runs; one that finished meanwhile is
      // "not found".
      running.signal("alertResolved");
      return new AlertResult(
          alertname, target.cluster(), target.member(), AlertResult.RESOLVED_SIGNALLED, id, null);
    } catch (WorkflowNotFoundException e) {
      return new AlertResult(
          alertname,
          target.cluster(),
          target.member(),
          AlertResult.NOTHING_RUNNING,
          id,
          "no ReplaceMember runbook runs for this member");
    } catch (RuntimeException e) {
      return error(alertname, target, "cannot signal " + id + " on Temporal", e);
    }
  }

  private static AlertResult error(
      String alertname, AlertTargets.Found target, String what, RuntimeException e) {
    LOG.warn(
        "{} for alert {} on {}/{}",
        what,
        printable(alertname),
        target.cluster(),
        target.member(),
        e);
    return new AlertResult(
        alertname,
        target.cluster(),
        target.member(),
        AlertResult.ERROR,
        null,
        what
            + ": "
            + e.getClass().getSimpleName()
            + ": "
            + e.getMessage()
            + "; Alertmanager will send the alert again");
  }

  /** Label values come from the caller: keep them on one log line. */
  private static String printable(String value) {
    return value == null ? "-" : value.replaceAll("\\p{Cntrl}", "?");
  }
}
