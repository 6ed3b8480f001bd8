package io.etcdrunbooks.worker;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's Prometheus 2.42 (the server and promtool) as deploy/scripts/fetch-prometheus.sh caches
 * it, and the alert rules and dashboard shipped in deploy/.
 */
final class PrometheusTools {

  static final String VERSION = "2.42.0";
  static final Path RULES = Path.of("..", "deploy", "prometheus", "etcd-runbooks-rules.yaml");
  static final Path RULE_TESTS =
      Path.of("..", "deploy", "prometheus", "etcd-runbooks-rules.test.yaml");
  static final Path DASHBOARD = Path.of("..", "deploy", "grafana", "etcd-runbooks.json");

  private PrometheusTools() {}

  static Path bin(String name) {
    String cache = System.getenv("ETCD_RUNBOOKS_CACHE");
    Path dir =
        cache != null && !cache.isBlank()
            ? Path.of(cache)
            : Path.of(System.getProperty("user.home"), ".cache", "etcd-runbooks");
    Path bin = dir.resolve("prometheus").resolve(VERSION).resolve("bin").resolve(name);
    if (!Files.isExecutable(bin))
      throw new IllegalStateException(
          bin + " is missing: deploy/scripts/fetch-prometheus.sh fetches Debian's prometheus");
    return bin;
  }

  record Run(int exit, String output) {}

  /** Runs promtool with these arguments in deploy/prometheus; its output and exit code. */
  static Run promtool(String... args) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(bin("promtool").toString()));
    command.addAll(List.of(args));
    // paths given relative to the worker module, as the tests run
    for (int i = 1; i < command.size(); i++) {
      if (command.get(i).startsWith(".."))
        command.set(i, Path.of(command.get(i)).toAbsolutePath().toString());
    }
    Process process =
        new ProcessBuilder(command)
            .directory(RULES.getParent().toFile())
            .redirectErrorStream(true)
            .start();
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new IllegalStateException("promtool " + String.join(" ", args) + " did not end");
    }
    return new Run(
        process.exitValue(),
        new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
  }

  /** A dashboard panel's query, named by its panel. */
  record PanelQuery(String panel, String expr) {
    /**
     * The query as Prometheus gets it from Grafana for one range: every cluster, an interval of a
     * minute.
     */
    String evaluable(String range) {
      return expr.replace("$etcd_cluster", ".*")
          .replace("$__rate_interval", "1m")
          .replace("$__range", range);
    }
  }

  static List<PanelQuery> dashboardQueries() throws IOException {
    JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
    List<PanelQuery> queries = new ArrayList<>();
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets"))
        queries.add(new PanelQuery(panel.path("title").asText(), target.path("expr").asText()));
    }
    return queries;
  }
}
