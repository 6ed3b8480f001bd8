package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.testkit.Ports;
import io.micronaut.context.ApplicationContext;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The probes of deploy/helm: while Temporal cannot be reached, a process is alive (its liveness
 * probe passes, so a Temporal outage restarts no pod) but not ready, naming Temporal. The API-only
 * process's metrics need no SSH client.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class HealthProbesTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void aProcessThatCannotReachTemporalIsAliveButNotReady() throws Exception {
    Path inventory =
        Files.writeString(
            dir.resolve("inventory.yaml"),
            "releases: {localDir: " + dir.resolve("releases") + "}\nclusters: {}\n");
    int port = Ports.free();
    // the api role: its process starts without Temporal (a worker's start waits for it), and both
    // roles serve the same probes
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

  @Test
  void anApiOnlyProcessServesMetricsWithoutAnSshClientOrBackupReads() throws Exception {
    // the API's pod has no SSH keys, backup directory or bucket credentials (deploy/helm): the
    // backups' metrics are the workers'
    Path inventory =
        Files.writeString(
            dir.resolve("inventory.yaml"),
            "releases: {localDir: " + dir.resolve("releases") + "}\nclusters: {}\n");
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
    Path inventory =
        Files.writeString(
            dir.resolve("inventory.yaml"),
            "releases: {localDir: " + dir.resolve("releases") + "}\nclusters: {}\n");
    for (String roles : List.of("worker", "worker,api", "api,worker", "api")) {
      try (ApplicationContext context =
          ApplicationContext.run(
              Map.of("runbooks.roles", roles, "runbooks.inventory", inventory.toString()))) {
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
