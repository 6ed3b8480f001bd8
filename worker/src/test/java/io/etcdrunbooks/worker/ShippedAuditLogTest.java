package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.util.ContextInitializer;
import io.etcdrunbooks.api.testing.ApiHarness;
import io.etcdrunbooks.api.testing.FakeUpgrade;
import io.etcdrunbooks.api.testing.RawHttp;
import io.etcdrunbooks.api.testing.RawHttp.Answer;
import io.etcdrunbooks.api.testing.TestTokens;
import io.etcdrunbooks.testkit.Ports;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.worker.WorkerFactory;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * With the logging configuration the jar ships (not the tests' own), allowed changes reach the
 * audit log, not only refusals: the root level (WARN) must not hide them.
 */
@RealEtcd
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ShippedAuditLogTest {

  @TempDir Path dir;

  @Test
  void approvalsPausesAndRefusalsAreAllWrittenToTheAuditFile() throws Exception {
    Path auditFile = dir.resolve("audit.log");
    LoggerContext logging = (LoggerContext) LoggerFactory.getILoggerFactory();
    try {
      configure(logging, shippedConfiguration(), auditFile);
      // the api role as the jar runs it, on the embedded Temporal, with a worker that only knows
      // the fake upgrade
      ApplicationContext context =
          Main.start(
              List.of("api"),
              Map.of(
                  "runbooks.api.tokens-file",
                      TestTokens.write(dir.resolve("api-tokens.yaml"), TestTokens.ALL).toString(),
                  "runbooks.inventory", ApiHarness.inventory(dir).toString(),
                  "runbooks.task-queue", ApiHarness.TASK_QUEUE,
                  "temporal.address", "",
                  "temporal.embedded-port", Ports.free(),
                  "micronaut.server.port", Ports.free()));
      try (context) {
        WorkflowClient client = context.getBean(WorkflowClient.class);
        WorkerFactory workers = WorkerFactory.newInstance(client);
        workers
            .newWorker(ApiHarness.TASK_QUEUE)
            .registerWorkflowImplementationTypes(FakeUpgrade.class);
        workers.start();
        UpgradeClusterWorkflow upgrade =
            client.newWorkflowStub(
                UpgradeClusterWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setWorkflowId("change-sandbox")
                    .setTaskQueue(ApiHarness.TASK_QUEUE)
                    .build());
        WorkflowClient.start(
            upgrade::upgrade,
            UpgradeRequest.to("sandbox", "3.5.30", RunbookOptions.defaults().withApproval()));
        RawHttp http = new RawHttp(context.getBean(EmbeddedServer.class).getPort());
        Answer pause =
            http.send(
                "POST",
                "/api/v1/runbooks/change-sandbox/pause",
                TestTokens.OPERATOR.bearer(),
                "{}");
        Answer approve =
            http.send(
                "POST",
                "/api/v1/runbooks/change-sandbox/approve",
                TestTokens.OPERATOR.bearer(),
                "{}");
        Answer refused =
            http.send(
                "POST",
                "/api/v1/runbooks/change-sandbox/approve",
                TestTokens.STAGING.bearer(),
                "{}");
        assertThat(pause.status()).isEqualTo(202);
        assertThat(approve.status()).isEqualTo(202);
        assertThat(refused.status()).isEqualTo(403);
        workers.shutdownNow();
      }
      String audit = Files.readString(auditFile);
      assertThat(audit)
          .contains(
              "INFO who=on-call role=operator cluster=sandbox workflow=change-sandbox POST /api/v1/runbooks/change-sandbox/pause -> 202")
          .contains(
              "INFO who=on-call role=operator cluster=sandbox workflow=change-sandbox POST /api/v1/runbooks/change-sandbox/approve -> 202")
          .contains(
              "WARN who=staging-bot refused POST /api/v1/runbooks/change-sandbox/approve -> 403")
          .doesNotContain(TestTokens.OPERATOR.secret(), TestTokens.STAGING.secret());
      assertThat(audit.lines())
          .as("only audit lines in the audit file")
          .allMatch(line -> line.contains(" who="));
    } finally {
      logging.reset();
      new ContextInitializer(logging).autoConfig();
    }
  }

  /**
   * The logback.xml of worker/src/main/resources, which the tests' own logback-test.xml otherwise
   * hides.
   */
  private static URL shippedConfiguration() {
    URL url = Main.class.getClassLoader().getResource("logback.xml");
    assertThat(url).as("logback.xml on the class path").isNotNull();
    assertThat(url.getPath())
        .as("the shipped one, from this module's main resources")
        .contains("/worker/target/classes/");
    return url;
  }

  private static void configure(LoggerContext logging, URL configuration, Path auditFile)
      throws Exception {
    logging.reset();
    logging.putProperty("ETCD_RUNBOOKS_AUDIT_LOG", auditFile.toString());
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(logging);
    configurator.doConfigure(configuration);
  }
}
