package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.testkit.EmbeddedTemporal;
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
 * The probes of deploy/helm: once Temporal cannot be reached, a worker is still alive (its liveness
 * probe passes, so a Temporal outage restarts no pod) but no longer ready, naming Temporal.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class HealthProbesTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @Test
  void aWorkerWhoseTemporalGoesAwayStaysAliveButIsNoLongerReady() throws Exception {
    Path inventory =
        Files.writeString(
            dir.resolve("inventory.yaml"),
            "releases: {localDir: " + dir.resolve("releases") + "}\nclusters: {}\n");
    int port = Ports.free();
    EmbeddedTemporal temporal = EmbeddedTemporal.start(Ports.free());
    ApplicationContext context;
    try {
      context =
          Main.start(
              List.of("worker"),
              Map.of(
                  "runbooks.inventory",
                  inventory.toString(),
                  "temporal.address",
                  temporal.address(),
                  "micronaut.server.port",
                  port));
    } catch (RuntimeException e) {
      temporal.close();
      throw e;
    }
    try {
      assertThat(get(port, "/health").statusCode()).isEqualTo(200);
      temporal.close();

      HttpResponse<String> live = get(port, "/health/live");
      assertThat(live.statusCode()).as(live.body()).isEqualTo(200);
      assertThat(JSON.readTree(live.body()).path("status").asText()).isEqualTo("UP");
      HttpResponse<String> ready = get(port, "/health");
      assertThat(ready.statusCode()).as(ready.body()).isEqualTo(503);
      JsonNode body = JSON.readTree(ready.body());
      assertThat(body.path("temporal").path("status").asText()).isEqualTo("DOWN");
    } finally {
      context.close();
      temporal.close();
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
