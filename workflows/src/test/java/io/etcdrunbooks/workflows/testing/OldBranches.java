package io.etcdrunbooks.workflows.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.workflows.backup.BackupClusterWorkflowImpl;
import io.etcdrunbooks.workflows.backup.BackupScheduleWorkflowImpl;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.common.RunbookPayloads;
import io.etcdrunbooks.workflows.fleet.FleetUpgradeWorkflowImpl;
import io.etcdrunbooks.workflows.maintenance.MaintenanceScheduleWorkflowImpl;
import io.etcdrunbooks.workflows.maintenance.MaintenanceWorkflowImpl;
import io.etcdrunbooks.workflows.migrate.MigrateV2ToV3WorkflowImpl;
import io.etcdrunbooks.workflows.recover.RecoverQuorumWorkflowImpl;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberWorkflowImpl;
import io.etcdrunbooks.workflows.restore.RestoreClusterWorkflowImpl;
import io.etcdrunbooks.workflows.rollback.RollbackClusterWorkflowImpl;
import io.etcdrunbooks.workflows.scale.ScaleClusterWorkflowImpl;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsWorkflowImpl;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflowImpl;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.common.interceptors.WorkerInterceptorBase;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowInboundCallsInterceptorBase;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptor;
import io.temporal.common.interceptors.WorkflowOutboundCallsInterceptorBase;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactoryOptions;
import io.temporal.worker.WorkerOptions;
import io.temporal.workflow.Workflow;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Replays recorded histories against today's workflow code and notes, per history, the change ids
 * whose Workflow.getVersion answered {@link Workflow#DEFAULT_VERSION}: the old branches that
 * history takes. Each history replays under its cluster's change id, which every recorded run
 * either had or (dry runs, runs before the change-id guard) did not read.
 */
public final class OldBranches implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, Set<String>> oldBranches = new TreeMap<>();
  private final Map<String, Set<String>> seen = new TreeMap<>();
  private final TestWorkflowEnvironment env;
  private final Worker worker;
  private String replaying;

  public OldBranches() {
    env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setWorkflowClientOptions(RunbookPayloads.clientOptions().build())
                .setWorkerFactoryOptions(
                    WorkerFactoryOptions.newBuilder()
                        .setWorkerInterceptors(new VersionObserver())
                        .build())
                .build());
    // a replay on a loaded machine may hold the workflow thread for over the default second
    worker =
        env.newWorker(
            "replay-old-branches",
            WorkerOptions.newBuilder()
                .setDefaultDeadlockDetectionTimeout(RecordedHistories.DEADLOCK_DETECTION_MILLIS)
                .build());
    worker.registerWorkflowImplementationTypes(
        BackupClusterWorkflowImpl.class,
        BackupScheduleWorkflowImpl.class,
        FleetUpgradeWorkflowImpl.class,
        MaintenanceScheduleWorkflowImpl.class,
        MaintenanceWorkflowImpl.class,
        MigrateV2ToV3WorkflowImpl.class,
        RecoverQuorumWorkflowImpl.class,
        ReplaceMemberWorkflowImpl.class,
        RestoreClusterWorkflowImpl.class,
        RollbackClusterWorkflowImpl.class,
        ScaleClusterWorkflowImpl.class,
        ReconfigureTlsWorkflowImpl.class,
        UpgradeClusterWorkflowImpl.class);
  }

  /** The change ids whose old branch the history took when replayed; fails when it does not. */
  public Set<String> of(String resource) throws Exception {
    if (!oldBranches.containsKey(resource)) {
      String json = read(resource);
      replaying = resource;
      oldBranches.put(resource, new TreeSet<>());
      seen.put(resource, new TreeSet<>());
      try {
        WorkflowReplayer.replayWorkflowExecution(
            WorkflowExecutionHistory.fromJson(json, RunbookIds.changing(cluster(json))), worker);
      } finally {
        replaying = null;
      }
    }
    return oldBranches.get(resource);
  }

  /** Every change id the history's replay asked for, whichever branch it took. */
  public Set<String> askedBy(String resource) throws Exception {
    of(resource);
    return seen.get(resource);
  }

  private static String cluster(String history) throws IOException {
    JsonNode payload =
        JSON.readTree(history)
            .path("events")
            .path(0)
            .path("workflowExecutionStartedEventAttributes")
            .path("input")
            .path("payloads")
            .path(0)
            .path("data");
    JsonNode input =
        JSON.readTree(
            new String(Base64.getDecoder().decode(payload.asText()), StandardCharsets.UTF_8));
    return input.path("cluster").asText("unnamed");
  }

  private static String read(String resource) throws IOException {
    try (InputStream in = OldBranches.class.getClassLoader().getResourceAsStream(resource)) {
      if (in == null) throw new IllegalArgumentException("no resource " + resource);
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  @Override
  public void close() {
    env.close();
  }

  private final class VersionObserver extends WorkerInterceptorBase {
    @Override
    public WorkflowInboundCallsInterceptor interceptWorkflow(WorkflowInboundCallsInterceptor next) {
      return new WorkflowInboundCallsInterceptorBase(next) {
        @Override
        public void init(WorkflowOutboundCallsInterceptor outbound) {
          super.init(
              new WorkflowOutboundCallsInterceptorBase(outbound) {
                @Override
                public int getVersion(String changeId, int minSupported, int maxSupported) {
                  int version = super.getVersion(changeId, minSupported, maxSupported);
                  if (replaying != null) {
                    seen.get(replaying).add(changeId);
                    if (version == Workflow.DEFAULT_VERSION) {
                      oldBranches.get(replaying).add(changeId);
                    }
                  }
                  return version;
                }
              });
        }
      };
    }
  }
}
