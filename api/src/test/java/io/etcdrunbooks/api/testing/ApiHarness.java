package io.etcdrunbooks.api.testing;

import io.etcdrunbooks.workflows.common.ApprovalSigning;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.common.RunbookPayloads;
import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.recover.RecoverQuorumWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactoryOptions;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The HTTP API alone, for tests about requests and answers: Temporal's in-memory test environment
 * with {@link FakeUpgrade} as its only workflow, an inventory of two clusters ({@code sandbox} and
 * {@code staging-1}) whose members listen nowhere, and the four {@link TestTokens}. No etcd, no
 * SSH: starts in about a second.
 */
public final class ApiHarness implements AutoCloseable {

  public static final String TASK_QUEUE = "etcd-runbooks-api-test";

  public final TestWorkflowEnvironment temporal;
  public final WorkflowClient client;
  public final ApplicationContext context;
  public final EmbeddedServer server;
  public final RawHttp http;

  /**
   * The key the fake runbooks check signed approvals with: the API's own ({@code ApprovalSigning}
   * bean) once started, as a worker sharing its key file has it. A test may set another, as a
   * worker with another key file would have.
   */
  public final AtomicReference<ApprovalSigning> workerSigning;

  private ApiHarness(
      TestWorkflowEnvironment temporal,
      ApplicationContext context,
      AtomicReference<ApprovalSigning> workerSigning) {
    this.temporal = temporal;
    this.workerSigning = workerSigning;
    this.client = temporal.getWorkflowClient();
    this.context = context;
    this.server = context.getBean(EmbeddedServer.class);
    this.http = new RawHttp(server.getPort());
  }

  /**
   * @param extra more application properties; they win over the defaults
   */
  public static ApiHarness start(Path dir, Map<String, Object> extra) throws IOException {
    return start(dir, extra, WorkerFactoryOptions.getDefaultInstance());
  }

  /**
   * @param workers the test worker's factory options (for example without sticky execution, so that
   *     another worker can take its runs over)
   */
  public static ApiHarness start(Path dir, Map<String, Object> extra, WorkerFactoryOptions workers)
      throws IOException {
    // no time skipping: a signed approval expires by the workflow's clock, which must be the wall's
    TestWorkflowEnvironment temporal =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setWorkflowClientOptions(RunbookPayloads.clientOptions().build())
                .setWorkerFactoryOptions(workers)
                .setUseTimeskipping(false)
                .build());
    Worker worker = temporal.newWorker(TASK_QUEUE);
    AtomicReference<ApprovalSigning> signing = new AtomicReference<>(ApprovalSigning.NO_KEY);
    worker.registerWorkflowImplementationFactory(
        UpgradeClusterWorkflow.class,
        () -> (UpgradeClusterWorkflow) new FakeUpgrade().withApprovalSigning(signing.get()));
    worker.registerWorkflowImplementationFactory(
        RecoverQuorumWorkflow.class,
        () -> (RecoverQuorumWorkflow) new FakeRecoverQuorum().withApprovalSigning(signing.get()));
    temporal.start();
    try {
      Map<String, Object> properties = new HashMap<>();
      properties.put(
          "runbooks.api.tokens-file",
          TestTokens.write(dir.resolve("api-tokens.yaml"), TestTokens.ALL).toString());
      properties.put("runbooks.inventory", inventory(dir).toString());
      properties.put("runbooks.task-queue", TASK_QUEUE);
      properties.put("micronaut.server.port", freePort());
      properties.putAll(extra);
      ApplicationContext context =
          ApplicationContext.builder()
              .properties(properties)
              .singletons(temporal.getWorkflowClient())
              .start();
      context.getBean(EmbeddedServer.class).start();
      signing.set(context.getBean(ApprovalSigning.class));
      return new ApiHarness(temporal, context, signing);
    } catch (RuntimeException | IOException e) {
      temporal.close();
      throw e;
    }
  }

  /**
   * Starts a {@link FakeUpgrade} of cluster sandbox that waits for approval, straight through
   * Temporal's client (as the Web UI would); returns its run id.
   */
  public String startUpgradeAwaitingApproval(String workflowId) {
    UpgradeClusterWorkflow upgrade =
        client.newWorkflowStub(
            UpgradeClusterWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(workflowId)
                .setTaskQueue(TASK_QUEUE)
                .build());
    return WorkflowClient.start(
            upgrade::upgrade,
            UpgradeRequest.to("sandbox", "3.5.30", RunbookOptions.defaults().withApproval()))
        .getRunId();
  }

  /** The controls the runbook keeps in its memo (who paused, approved, ...), joined by commas. */
  public String controls(String workflowId) {
    List<?> controls =
        (List<?>)
            client
                .newUntypedWorkflowStub(workflowId)
                .describe()
                .getMemo(RunbookWorkflow.CONTROLS_MEMO, List.class);
    return controls == null
        ? ""
        : String.join(",", controls.stream().map(String::valueOf).toList());
  }

  /** Two clusters of one member each; the member's port is closed, so reading it fails at once. */
  public static Path inventory(Path dir) throws IOException {
    StringBuilder yaml =
        new StringBuilder("releases:\n  localDir: ")
            .append(dir.resolve("releases"))
            .append("\nclusters:\n");
    for (String cluster : List.of("sandbox", "staging-1")) {
      int closedPort = freePort();
      int peerPort = freePort();
      yaml.append("  ")
          .append(cluster)
          .append(":\n")
          .append("    ssh: {user: root, privateKeyFile: ")
          .append(dir.resolve("id"))
          .append(", knownHostsFile: ")
          .append(dir.resolve("known_hosts"))
          .append("}\n")
          .append("    service: {kind: plain}\n")
          .append("    backupDir: ")
          .append(dir.resolve("backups-" + cluster))
          .append("\n")
          .append("    backup: {encrypt: false}\n")
          .append("    members:\n")
          .append("      - {name: m1, host: 127.0.0.1, sshPort: ")
          .append(closedPort)
          .append(", clientUrl: 'http://127.0.0.1:")
          .append(closedPort)
          .append("', peerUrl: 'http://127.0.0.1:")
          .append(peerPort)
          .append("', dataDir: ")
          .append(dir.resolve(cluster + "-m1"))
          .append(", installDir: ")
          .append(dir.resolve("install"))
          .append(", serviceDir: ")
          .append(dir.resolve("service"))
          .append("}\n");
    }
    return Files.writeString(dir.resolve("inventory.yaml"), yaml);
  }

  /**
   * Puts a release of {@code version} into the harness's releases dir ({@code dir/releases}, the
   * inventory's {@code releases.localDir}) as deploy/scripts/fetch-etcd.sh lays it out:
   * releases/VERSION/bin/etcd, executable. The API then offers exactly the versions put there; with
   * none, it cannot tell what is offered and leaves that to the runbook's preflight.
   */
  public static void release(Path dir, String version) throws IOException {
    Path etcd =
        Files.createDirectories(dir.resolve("releases").resolve(version).resolve("bin"))
            .resolve("etcd");
    Files.writeString(etcd, "#!/bin/sh\n");
    Files.setPosixFilePermissions(etcd, PosixFilePermissions.fromString("rwx------"));
  }

  public static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @Override
  public void close() {
    try {
      context.close();
    } finally {
      temporal.close();
    }
  }
}
