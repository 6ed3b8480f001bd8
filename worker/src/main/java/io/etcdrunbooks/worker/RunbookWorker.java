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

  private final WorkflowClient client;
  private final String taskQueue;
  private final String stickySetting;
  private final boolean inProcess;
  private final Optional<WorkerDeploymentOptions> deployment;
  private final WorkerActivities activities;
  private final RunbookSettings settings;
  private final WaitForTemporal temporal;

  /** Made once Temporal answers: the sticky decision asks it which server it is. */
  private volatile WorkerFactory factory;

  private volatile Thread waiting;

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
    this.client = client;
    this.taskQueue = config.taskQueue();
    this.deployment =
        WorkerVersioning.options(
            versioning, RunbookWorker.class.getPackage().getImplementationVersion());
    this.stickySetting = temporal.stickyExecution();
    StickyExecution.check(stickySetting);
    this.inProcess = endpoint.inProcess();
    this.activities = activities;
    this.settings =
        new RunbookSettings(
            approvals, searchAttributes.enabled(), activityTimeouts.waitHeartbeatTimeout());
    this.temporal = new WaitForTemporal(client.getWorkflowServiceStubs(), endpoint.address());
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
    WorkerFactory polling = factory;
    return polling != null
        && polling.isStarted()
        && !polling.isShutdown()
        && !polling.isTerminated();
  }

  /**
   * Polls the task queue, then runs {@code onPolling}: at once when Temporal answers now, else from
   * a thread that asks it until it does (a worker started during a Temporal outage, or before
   * Temporal, runs on and is not ready until then, rather than exiting into a crash loop).
   */
  public void start(Runnable onPolling) {
    if (temporal.answers()) {
      poll();
      onPolling.run();
      return;
    }
    Thread thread =
        new Thread(
            () -> {
              try {
                temporal.await();
                synchronized (this) {
                  if (waiting == null) return; // closed meanwhile
                  poll();
                }
                onPolling.run();
              } catch (InterruptedException closed) {
                Thread.currentThread().interrupt();
              } catch (RuntimeException e) {
                LOG.error("the worker does not poll: {}", Main.reason(e), e);
              }
            },
            "wait-for-temporal");
    thread.setDaemon(true);
    waiting = thread;
    thread.start();
  }

  private void poll() {
    WorkerFactory made = WorkerFactory.newInstance(client);
    boolean sticky =
        StickyExecution.decide(stickySetting, inProcess, client.getWorkflowServiceStubs());
    Worker worker = made.newWorker(taskQueue, options(sticky, deployment));
    deployment.ifPresent(this::logVersion);
    register(worker, activities, settings);
    // not a runbook: where runbooks record inventory changes (runbooks.inventory-store: temporal)
    made.newWorker(InventoryRecordWorkflow.taskQueue(taskQueue), options(sticky, Optional.empty()))
        .registerWorkflowImplementationTypes(InventoryRecordKeeper.class);
    made.start();
    factory = made;
    LOG.info("worker polling task queue {}", taskQueue);
  }

  /** Lets activities in hand finish (bounded) before the connection to Temporal goes. */
  @PreDestroy
  @Override
  public void close() {
    Thread thread;
    synchronized (this) {
      thread = waiting;
      waiting = null;
    }
    if (thread != null) thread.interrupt();
    WorkerFactory polling = factory;
    if (polling == null) return;
    polling.shutdown();
    polling.awaitTermination(10, TimeUnit.SECONDS);
  }
}
