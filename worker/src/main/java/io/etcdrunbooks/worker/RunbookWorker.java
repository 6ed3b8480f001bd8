package io.etcdrunbooks.worker;

import io.etcdrunbooks.runtime.RunbooksConfig;
import io.etcdrunbooks.runtime.SearchAttributesConfig;
import io.etcdrunbooks.workflows.RunbookCatalog;
import io.etcdrunbooks.workflows.RunbookDefinition;
import io.etcdrunbooks.workflows.common.ApprovalSigning;
import io.etcdrunbooks.workflows.common.RunbookPayloads;
import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.inventory.InventoryRecordKeeper;
import io.etcdrunbooks.workflows.inventory.InventoryRecordWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.common.WorkerDeploymentVersion;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerDeploymentOptions;
import io.temporal.worker.WorkerFactory;
import io.temporal.worker.WorkerOptions;
import jakarta.annotation.PreDestroy;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The Temporal worker: polls the runbooks' task queue and runs their workflows and activities. */
@Singleton
public final class RunbookWorker implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(RunbookWorker.class);

  private final WorkerFactory factory;
  private final String taskQueue;

  public RunbookWorker(
      WorkflowClient client,
      RunbooksConfig config,
      TemporalConfig temporal,
      WorkerVersioningConfig versioning,
      TemporalFactory.TemporalEndpoint endpoint,
      SearchAttributesConfig searchAttributes,
      WorkerActivities activities,
      ApprovalSigning approvals,
      ActivitiesConfig activityTimeouts) {
    this.taskQueue = config.taskQueue();
    Optional<WorkerDeploymentOptions> deployment =
        WorkerVersioning.options(
            versioning, RunbookWorker.class.getPackage().getImplementationVersion());
    this.factory = WorkerFactory.newInstance(client);
    boolean sticky =
        StickyExecution.decide(
            temporal.stickyExecution(), endpoint.inProcess(), client.getWorkflowServiceStubs());
    Worker worker = factory.newWorker(taskQueue, options(sticky, deployment));
    deployment.ifPresent(this::logVersion);
    // not a runbook: where runbooks record inventory changes (runbooks.inventory-store: temporal)
    factory
        .newWorker(InventoryRecordWorkflow.taskQueue(taskQueue), options(sticky, Optional.empty()))
        .registerWorkflowImplementationTypes(InventoryRecordKeeper.class);
    register(
        worker,
        activities,
        new RunbookSettings(
            approvals, searchAttributes.enabled(), activityTimeouts.waitHeartbeatTimeout()));
  }

  /**
   * Sticky execution as Temporal has it by default: a workflow's next task goes to the worker that
   * holds it in memory, so a runbook's step does not replay its whole history first (each step
   * would otherwise cost a replay of every step before it). A real server hands a dead worker's
   * tasks on after {@link #STICKY_TIMEOUT}; Temporal's Java test server never does, so a worker
   * that connects to one turns it off ({@link StickyExecution}).
   */
  public static WorkerOptions options(boolean stickyExecution) {
    return options(stickyExecution, Optional.empty());
  }

  /** As {@link #options(boolean)}, in {@code deployment}'s Worker Deployment Version if any. */
  static WorkerOptions options(
      boolean stickyExecution, Optional<WorkerDeploymentOptions> deployment) {
    WorkerOptions.Builder options =
        WorkerOptions.newBuilder()
            .setStickyQueueScheduleToStartTimeout(stickyExecution ? STICKY_TIMEOUT : Duration.ZERO);
    deployment.ifPresent(options::setDeploymentOptions);
    return options.build();
  }

  private void logVersion(WorkerDeploymentOptions deployment) {
    WorkerDeploymentVersion version = deployment.getVersion();
    LOG.info(
        "worker versioning on: deployment {}, build id {}, default behavior {}. New runbooks come"
            + " here once it is current: temporal worker deployment set-current-version"
            + " --deployment-name {} --build-id {}",
        version.getDeploymentName(),
        version.getBuildId(),
        deployment.getDefaultVersioningBehavior(),
        version.getDeploymentName(),
        version.getBuildId());
  }

  static final Duration STICKY_TIMEOUT = Duration.ofSeconds(5);

  /**
   * Every runbook workflow and activity the worker offers, approvals that need a role refused (no
   * signing key); tests register through here too.
   */
  public static void register(Worker worker, WorkerActivities activities) {
    register(worker, activities, ApprovalSigning.NO_KEY);
  }

  /** As {@link #register(Worker, WorkerActivities, RunbookSettings)}, no search attributes. */
  public static void register(
      Worker worker, WorkerActivities activities, ApprovalSigning approvals) {
    register(worker, activities, new RunbookSettings(approvals, false));
  }

  /**
   * What the worker's configuration gives every runbook: the key its approval validator checks
   * signed tokens with, whether the namespace has the search attributes, and the most a wait's
   * heartbeat timeout may be. Workflow code reads no file and no configuration of its own.
   */
  public record RunbookSettings(
      ApprovalSigning approvals,
      boolean searchAttributesRegistered,
      Duration waitHeartbeatTimeout) {

    /** Every wait with its own heartbeat timeout. */
    public RunbookSettings(ApprovalSigning approvals, boolean searchAttributesRegistered) {
      this(approvals, searchAttributesRegistered, RunbookWorkflow.DEFAULT_WAIT_HEARTBEAT_TIMEOUT);
    }
  }

  /**
   * Every runbook workflow and activity the worker offers, each runbook made by a factory that
   * gives it {@code settings}.
   */
  public static void register(
      Worker worker, WorkerActivities activities, RunbookSettings settings) {
    for (RunbookDefinition<?> runbook : RunbookCatalog.all()) {
      registerFactory(worker, runbook.workflow(), runbook.implementation(), settings);
    }
    // not a runbook: where runbooks record inventory changes with runbooks.inventory-store:
    // temporal
    worker.registerWorkflowImplementationTypes(InventoryRecordKeeper.class);
    worker.registerActivitiesImplementations(activities.all());
  }

  private static <W> void registerFactory(
      Worker worker, Class<W> workflow, Class<?> implementation, RunbookSettings settings) {
    worker.registerWorkflowImplementationFactory(
        workflow,
        () ->
            workflow.cast(
                newRunbook(implementation)
                    .withApprovalSigning(settings.approvals())
                    .withSearchAttributesRegistered(settings.searchAttributesRegistered())
                    .withWaitHeartbeatTimeout(settings.waitHeartbeatTimeout())),
        RunbookPayloads.workflowOptions());
  }

  private static RunbookWorkflow newRunbook(Class<?> implementation) {
    try {
      return (RunbookWorkflow) implementation.getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot make runbook " + implementation.getName(), e);
    }
  }

  /** Started and not shut down: the worker polls its task queue. */
  public boolean isPolling() {
    return factory.isStarted() && !factory.isShutdown() && !factory.isTerminated();
  }

  public void start() {
    factory.start();
    LOG.info("worker polling task queue {}", taskQueue);
  }

  /** Lets activities in hand finish (bounded) before the connection to Temporal goes. */
  @PreDestroy
  @Override
  public void close() {
    factory.shutdown();
    factory.awaitTermination(10, TimeUnit.SECONDS);
  }
}
