package io.etcdrunbooks.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.testkit.Ports;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * Debian's Prometheus server on 127.0.0.1, scraping one worker's /metrics every 3 s (a scrape of 2
 * MB on a loaded machine may take more than a second), queried over its HTTP API.
 */
final class RealPrometheus implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final Process process;
  private final String address;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private RealPrometheus(Process process, String address) {
    this.process = process;
    this.address = address;
  }

  /**
   * @param target the worker's host:port
   */
  static RealPrometheus scraping(Path dir, String target) throws Exception {
    Files.createDirectories(dir);
    Path config = dir.resolve("prometheus.yml");
    Files.writeString(
        config,
        """
        global: {scrape_interval: 3s, scrape_timeout: 3s, evaluation_interval: 3s}
        scrape_configs:
          - job_name: etcd-runbooks
            static_configs: [{targets: ['TARGET']}]
        """
            .replace("TARGET", target));
    String address = "127.0.0.1:" + Ports.free();
    Process process =
        new ProcessBuilder(
                List.of(
                    PrometheusTools.bin("prometheus").toString(),
                    "--config.file=" + config,
                    "--storage.tsdb.path=" + dir.resolve("data"),
                    "--web.listen-address=" + address,
                    "--log.level=warn"))
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("prometheus.log").toFile())
            .start();
    RealPrometheus prometheus = new RealPrometheus(process, address);
    Instant deadline = Instant.now().plusSeconds(30);
    while (!prometheus.ready()) {
      if (!process.isAlive() || Instant.now().isAfter(deadline))
        throw new IllegalStateException(
            "prometheus did not start: " + Files.readString(dir.resolve("prometheus.log")));
      Thread.sleep(200);
    }
    return prometheus;
  }

  private boolean ready() {
    try {
      return http.send(
                  HttpRequest.newBuilder(URI.create("http://" + address + "/-/ready")).build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode()
          == 200;
    } catch (Exception e) {
      return false;
    }
  }

  /** The series an instant query returns now. */
  JsonNode query(String query) throws Exception {
    return queryRange(query, Instant.now(), Instant.now());
  }

  /** The series a range query returns (its {@code data.result}), or the error Prometheus names. */
  JsonNode queryRange(String query, Instant from, Instant to) throws Exception {
    String url =
        "http://%s/api/v1/query_range?query=%s&start=%d&end=%d&step=1"
            .formatted(
                address,
                URLEncoder.encode(query, StandardCharsets.UTF_8),
                from.getEpochSecond(),
                to.getEpochSecond());
    JsonNode answer =
        JSON.readTree(
            http.send(
                    HttpRequest.newBuilder(URI.create(url)).build(),
                    HttpResponse.BodyHandlers.ofString())
                .body());
    if (!"success".equals(answer.path("status").asText()))
      throw new IllegalArgumentException(query + ": " + answer);
    return answer.path("data").path("result");
  }

  @Override
  public void close() {
    process.destroy();
  }
}
