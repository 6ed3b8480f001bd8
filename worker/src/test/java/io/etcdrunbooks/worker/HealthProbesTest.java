package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.testkit.Ports;
import io.etcdrunbooks.testkit.TemporalDevServer;
import io.etcdrunbooks.workflows.backup.BackupClusterRequest;
import io.etcdrunbooks.workflows.backup.BackupClusterWorkflow;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.micronaut.context.ApplicationContext;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import io.temporal.client.WorkflowOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The probes of deploy/helm: while Temporal cannot be reached, a process is alive (its liveness
 * probe passes, so a Temporal outage restarts no pod) but not ready, naming Temporal; a worker
 * started then becomes ready once Temporal answers. The API-only process's metrics need no SSH
 * client.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class HealthProbesTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void aProcessThatCannotReachTemporalIsAliveButNotReady() throws Exception {
    Path inventory = inventory();
    int port = Ports.free();
    // the api role here, the worker role below: both serve the same probes
    ApplicationContext context =
        Main.start(
            List.of("api"),
            Map.of(
                "runbooks.inventory",
                inventory.toString(),
                "temporal.address",
                "127.0.0.1:" + Ports.free(),
                "micronaut.server.port",
                port));
    try {
      HttpResponse<String> live = get(port, "/health/live");
      assertThat(live.statusCode()).as(live.body()).isEqualTo(200);
      assertThat(JSON.readTree(live.body()).path("status").asText()).isEqualTo("UP");
      HttpResponse<String> ready = get(port, "/health");
      assertThat(ready.statusCode()).as(ready.body()).isEqualTo(503);
      JsonNode body = JSON.readTree(ready.body());
      assertThat(body.path("temporal").path("status").asText()).isEqualTo("DOWN");
    } finally {
      context.close();
    }
  }

  /**
   * A worker started while nothing answers on Temporal's address keeps running and keeps trying, as
   * a pod would in Kubernetes rather than crash-looping: alive, not ready, the failure logged once
   * naming the address; once a real server answers there it polls (ready) and runs a runbook.
   */
  @Test
  void aWorkerStartedBeforeTemporalAnswersBecomesReadyAndRunsARunbookOnceItDoes() throws Exception {
    int temporalPort = Ports.free(); // nothing listens there until the server starts below
    String address = "127.0.0.1:" + temporalPort;
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    log.start();
    Logger workerLog = (Logger) LoggerFactory.getLogger("io.etcdrunbooks.worker");
    workerLog.addAppender(log);
    TemporalDevServer temporal = null;
    int port = Ports.free();
    ApplicationContext context =
        Main.start(
            List.of("worker"),
            Map.of(
                "runbooks.inventory",
                inventory().toString(),
                "runbooks.task-queue",
                "late-temporal",
                "temporal.address",
                address,
                "micronaut.server.port",
                port));
    try {
      assertThat(get(port, "/health/live").statusCode()).isEqualTo(200);
      HttpResponse<String> notReady = get(port, "/health");
      assertThat(notReady.statusCode()).as(notReady.body()).isEqualTo(503);
      assertThat(JSON.readTree(notReady.body()).path("worker").path("status").asText())
          .isEqualTo("DOWN");

      temporal = TemporalDevServer.startOn(dir.resolve("temporal"), temporalPort);
      Instant deadline = Instant.now().plusSeconds(60);
      HttpResponse<String> ready = get(port, "/health");
      while (ready.statusCode() != 200) {
        assertThat(Instant.now()).as("ready in time: %s", ready.body()).isBefore(deadline);
        TimeUnit.MILLISECONDS.sleep(200);
        ready = get(port, "/health");
      }
      assertThat(JSON.readTree(ready.body()).path("worker").path("status").asText())
          .isEqualTo("UP");
      BackupClusterWorkflow backup =
          context
              .getBean(WorkflowClient.class)
              .newWorkflowStub(
                  BackupClusterWorkflow.class,
                  WorkflowOptions.newBuilder()
                      .setWorkflowId(BackupClusterWorkflow.workflowId("nowhere"))
                      .setTaskQueue("late-temporal")
                      .setWorkflowExecutionTimeout(Duration.ofMinutes(1))
                      .build());
      assertThatThrownBy(
              () ->
                  backup.backup(
                      BackupClusterRequest.of("nowhere", "late", RunbookOptions.defaults())))
          .as("run by the worker, which refuses a cluster the inventory lacks")
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> assertThat(Failures.rootMessage(e)).contains("unknown cluster 'nowhere'"));
      assertThat(log.list)
          .filteredOn(e -> e.getLevel() == Level.WARN)
          .filteredOn(e -> e.getFormattedMessage().contains("does not answer"))
          .as("one warning for one failure, however many attempts")
          .singleElement()
          .satisfies(e -> assertThat(e.getFormattedMessage()).contains(address));
    } finally {
      context.close();
      workerLog.detachAppender(log);
      if (temporal != null) temporal.close();
    }
  }

  private Path inventory() throws Exception {
    return Files.writeString(
        dir.resolve("inventory.yaml"),
        "releases: {localDir: " + dir.resolve("releases") + "}\nclusters: {}\n");
  }

  @Test
  void anApiOnlyProcessServesMetricsWithoutAnSshClientOrBackupReads() throws Exception {
    // the API's pod has no SSH keys, backup directory or bucket credentials (deploy/helm): the
    // backups' metrics are the workers'
    Path inventory = inventory();
    int port = Ports.free();
    ApplicationContext context =
        Main.start(
            List.of("api"),
            Map.of(
                "runbooks.inventory",
                inventory.toString(),
                "temporal.address",
                "127.0.0.1:" + Ports.free(),
                "micronaut.server.port",
                port));
    try {
      HttpResponse<String> metrics = get(port, "/metrics");

      assertThat(metrics.statusCode()).as(metrics.body()).isEqualTo(200);
      assertThat(metrics.body()).contains("jvm_memory_used_bytes");
      assertThat(context.getActiveBeanRegistrations(SshConnector.class)).isEmpty();
      assertThat(context.getActiveBeanRegistrations(BackupMetrics.class)).isEmpty();
    } finally {
      context.close();
    }
  }

  @Test
  void everyProcessWithTheWorkerRoleScrapesTheBackupsMetrics() throws Exception {
    Path inventory = inventory();
    // a Temporal that does not answer: the scrape's reads of it fail in the background
    String temporal = "127.0.0.1:" + Ports.free();
    for (String roles : List.of("worker", "worker,api", "api,worker", "api")) {
      try (ApplicationContext context =
          ApplicationContext.run(
              Map.of(
                  "runbooks.roles",
                  roles,
                  "runbooks.inventory",
                  inventory.toString(),
                  "temporal.address",
                  temporal))) {
        context.getBean(MetricsController.class).scrape();

        assertThat(context.getActiveBeanRegistrations(BackupMetrics.class))
            .as(roles)
            .hasSize(roles.contains("worker") ? 1 : 0);
      }
    }
  }

  private HttpResponse<String> get(int port, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .timeout(Duration.ofSeconds(10))
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
