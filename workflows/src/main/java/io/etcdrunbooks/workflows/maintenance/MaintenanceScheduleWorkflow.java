package io.etcdrunbooks.workflows.maintenance;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Runbook;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.List;

/**
 * A long-running per-cluster schedule: a Maintenance runbook now and then every interval, on
 * workflow time, as a child under the cluster's change id (a round never overlaps an upgrade; a
 * round that finds the cluster busy is skipped and recorded). Compaction by age: each round notes
 * the revision, and compacts to the newest noted at least compactOlderThanMinutes ago. {@code
 * pause} holds it, {@code resume} lets it go on; cancel it to stop it.
 */
@WorkflowInterface
public interface MaintenanceScheduleWorkflow extends Runbook {

  String TYPE = "MaintenanceSchedule";

  /** Failure types it ends with: none of its own; a failed round is recorded and it goes on. */
  List<FailureType> FAILURES = List.of(FailureType.UnknownCluster);

  @WorkflowMethod(name = TYPE)
  MaintenanceScheduleResult run(MaintenanceScheduleRequest request);

  static String workflowId(String cluster) {
    return "maintenance-schedule-" + cluster;
  }
}
