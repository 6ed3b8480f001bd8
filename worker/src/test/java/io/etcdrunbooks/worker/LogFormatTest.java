package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.status.Status;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;

/**
 * The worker's logback.xml: plain text by default, logback's JSON encoder when
 * ETCD_RUNBOOKS_LOG_FORMAT is json (read like any logback variable: a context or system property,
 * or the environment), the MDC (Temporal's WorkflowId and RunId, the runbook's etcd_cluster and
 * phase) and a readable date in each line.
 */
class LogFormatTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void jsonOnRequestWithTheDateAndTheRunbooksContext() throws Exception {
    String marker = UUID.randomUUID().toString();
    JsonNode line = JSON.readTree(lineLogged("json", marker));
    assertThat(line.path("formattedMessage").asText()).isEqualTo("phase UPGRADE " + marker);
    assertThat(line.path("level").asText()).isEqualTo("INFO");
    assertThat(line.path("mdc").path("WorkflowId").asText()).isEqualTo("change-prod");
    assertThat(line.path("mdc").path("etcd_cluster").asText()).isEqualTo("prod");
    assertThat(line.path("mdc").path("phase").asText()).isEqualTo("UPGRADE");
    assertThat(Instant.parse(line.path("date").asText()))
        .isBetween(Instant.now().minusSeconds(60), Instant.now());
  }

  @Test
  void plainTextByDefault() throws Exception {
    String marker = UUID.randomUUID().toString();
    assertThat(lineLogged(null, marker))
        .matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  LogFormatTest - phase UPGRADE " + marker);
  }

  @Test
  void anUnknownFormatLogsAsTextAfterAnErrorNamingTheSetting() throws Exception {
    String marker = UUID.randomUUID().toString();
    assertThat(lineLogged("yaml", marker))
        .endsWith("INFO  LogFormatTest - phase UPGRADE " + marker);
  }

  /** The line logback, configured from logback.xml, writes to standard error for one event. */
  private static String lineLogged(String format, String marker) throws Exception {
    LoggerContext context = new LoggerContext();
    // the MDC slf4j's MDC class writes to
    context.setMDCAdapter(((LoggerContext) LoggerFactory.getILoggerFactory()).getMDCAdapter());
    if (format != null) context.putProperty("ETCD_RUNBOOKS_LOG_FORMAT", format);
    PrintStream original = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try {
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      JoranConfigurator configurator = new JoranConfigurator();
      configurator.setContext(context);
      configurator.doConfigure(LogFormatTest.class.getResource("/logback.xml"));
      MDC.put("WorkflowId", "change-prod");
      MDC.put("etcd_cluster", "prod");
      MDC.put("phase", "UPGRADE");
      context.getLogger("io.etcdrunbooks.workflows.LogFormatTest").info("phase UPGRADE {}", marker);
      // logback prints its whole configuration to standard error at start when it has a warning
      boolean known = format == null || format.equals("json") || format.equals("text");
      assertThat(context.getStatusManager().getCopyOfStatusList())
          .filteredOn(status -> status.getLevel() > Status.INFO)
          .extracting(Status::getMessage)
          .as("logback's warnings and errors")
          .isEqualTo(
              known
                  ? List.of()
                  : List.of(
                      "ETCD_RUNBOOKS_LOG_FORMAT is '%s': it must be text or json; logging as text"
                          .formatted(format)));
    } finally {
      System.setErr(original);
      MDC.clear();
      context.stop();
    }
    return err.toString(StandardCharsets.UTF_8)
        .lines()
        .filter(l -> l.contains(marker))
        .findFirst()
        .orElseThrow(
            () ->
                new AssertionError(
                    "no line with %s in:\n%s\nlogback said: %s"
                        .formatted(marker, err, context.getStatusManager().getCopyOfStatusList())));
  }
}
