package io.etcdrunbooks.api.slack;

import io.etcdrunbooks.workflows.common.Progress;
import io.etcdrunbooks.workflows.fleet.ClusterOutcome;
import io.etcdrunbooks.workflows.fleet.FleetStatus;
import io.etcdrunbooks.workflows.fleet.FleetUpgradeWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import java.util.List;
import java.util.stream.Collectors;

/** {@code /etcd status <fleet>}: a fleet upgrade's waves and clusters, from its queries. */
final class SlackFleetStatus {

  private final WorkflowClient client;

  SlackFleetStatus(WorkflowClient client) {
    this.client = client;
  }

  boolean exists(String fleet) {
    try {
      client.newUntypedWorkflowStub(FleetUpgradeWorkflow.workflowId(fleet)).describe();
      return true;
    } catch (WorkflowNotFoundException e) {
      return false;
    }
  }

  String describe(String fleet) {
    FleetUpgradeWorkflow workflow =
        client.newWorkflowStub(FleetUpgradeWorkflow.class, FleetUpgradeWorkflow.workflowId(fleet));
    Progress progress = workflow.progress();
    FleetStatus status = workflow.fleetStatus();
    StringBuilder text =
        new StringBuilder("*fleet ")
            .append(SlackReply.escape(fleet))
            .append("*: ")
            .append(progress == null ? "starting" : progress.phase().name());
    if (status == null) return text.toString();
    text.append(" → ").append(status.targetVersion());
    if (!status.wave().isEmpty()) text.append(", wave *").append(status.wave()).append('*');
    text.append('\n')
        .append(
            status.waves().stream()
                .map(w -> w.name() + " " + w.clusters())
                .collect(Collectors.joining(" → ", "waves: ", "\n")));
    for (String state :
        List.of(
            ClusterOutcome.RUNNING,
            ClusterOutcome.UPGRADED,
            ClusterOutcome.FAILED,
            ClusterOutcome.PENDING,
            ClusterOutcome.NOT_STARTED,
            ClusterOutcome.REFUSED,
            ClusterOutcome.BUSY,
            ClusterOutcome.ON_TARGET)) {
      List<ClusterOutcome> in =
          status.clusters().stream().filter(c -> c.state().equals(state)).toList();
      if (in.isEmpty()) continue;
      text.append("• ").append(state).append(": ");
      text.append(
          in.stream()
              .map(
                  c ->
                      state.equals(ClusterOutcome.FAILED) || state.equals(ClusterOutcome.REFUSED)
                          ? c.cluster() + " (" + SlackReply.escape(shorten(c.detail())) + ")"
                          : c.cluster())
              .collect(Collectors.joining(", ")));
      text.append('\n');
    }
    if (!status.halted().isEmpty())
      text.append("halted: ").append(SlackReply.escape(status.halted())).append('\n');
    if (progress != null && !progress.message().isEmpty())
      text.append("last: ").append(SlackReply.escape(shorten(progress.message())));
    return text.toString().strip();
  }

  private static String shorten(String s) {
    return s.length() <= 200 ? s : s.substring(0, 200) + "...";
  }
}
