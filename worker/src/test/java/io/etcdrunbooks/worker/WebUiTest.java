package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.api.testing.TestTokens;
import io.etcdrunbooks.testkit.CodecProxy;
import io.etcdrunbooks.testkit.EtcdReleases;
import io.etcdrunbooks.testkit.Ports;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.testkit.TemporalDevServer;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import io.micronaut.context.ApplicationContext;
import io.temporal.api.common.v1.Payload;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowFailedException;
import java.net.URI;
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
 * The Temporal Web UI as operators use it, in a real browser (Debian's Chromium, headless, driven
 * by playwright-core as deploy/scripts/fetch-browser.sh installs them): on {@code temporal server
 * start-dev} with the product's worker and API (payloads encrypted, the UI decoding them through
 * the test kit's {@link CodecProxy}), an upgrade of a real 3-member sandbox is started from the
 * UI's Start Workflow form, approved with the {@code approve} signal from the UI, and completes; an
 * upgrade started under another workflow id fails {@code WrongWorkflowId}, as the UI shows. The
 * browser's steps are in src/test/browser/web-ui-upgrade.cjs; their screenshots go to
 * target/web-ui-screenshots.
 */
@RealEtcd
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class WebUiTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path SCRIPT = Path.of("src/test/browser/web-ui-upgrade.cjs");
  private static final Path SCREENSHOTS = Path.of("target/web-ui-screenshots");
  private static final String TASK_QUEUE = "etcd-runbooks-web-ui";
  private static final String FROM = "3.5.16";
  private static final String TARGET = "3.5.30";
  private static final String CHANGE = UpgradeClusterWorkflow.workflowId("sandbox");
  private static final String WRONG_ID = "upgrade-sandbox-from-ui";
  private static final String APPROVER = "ada-in-the-web-ui";
  private static final TestTokens.Token CODEC = TestTokens.Token.of("web-ui-codec", "viewer");

  @TempDir Path dir;

  @Test
  void anUpgradeStartedAndApprovedInTheWebUiCompletesAndOneUnderAnotherIdIsRefused()
      throws Exception {
    assumeTrue(
        Files.isExecutable(CHROMIUM),
        CHROMIUM + " is missing: as root, deploy/scripts/fetch-browser.sh installs it");
    Path playwright = playwrightModules();
    try (Sandbox sandbox =
            Sandbox.create(
                new SandboxSpec(dir.resolve("sandbox"), "sandbox", 3, FROM, Map.of()),
                SandboxRunbooks.releases());
        Runbooks runbooks = Runbooks.start(dir, sandbox)) {
      String input =
          "{\"cluster\":\"sandbox\",\"targetVersion\":\""
              + TARGET
              + "\",\"dryRun\":false,\"requireApproval\":true}";
      emptyDirectory(SCREENSHOTS);
      System.out.println(
          "WebUiTest: the browser's screenshots and log go to " + SCREENSHOTS.toAbsolutePath());
      Browser.Outcome browser =
          Browser.run(
              playwright,
              SCRIPT,
              Map.of(
                  "ui", runbooks.temporal.webUi(),
                  "taskQueue", TASK_QUEUE,
                  "workflowType", UpgradeClusterWorkflow.TYPE,
                  "workflowId", CHANGE,
                  "wrongWorkflowId", WRONG_ID,
                  "input", input,
                  "approver", APPROVER,
                  "targetVersion", TARGET,
                  "screenshots", SCREENSHOTS.toAbsolutePath().toString()),
              SCREENSHOTS.resolve("browser.log"),
              Duration.ofMinutes(4));
      assertThat(browser.exit())
          .as("the browser's steps:\n%s\nthe server's log:\n%s", browser.log(), runbooks.log())
          .isZero();

      WorkflowClient client = runbooks.context.getBean(WorkflowClient.class);
      UpgradeResult result =
          client
              .newUntypedWorkflowStub(CHANGE)
              .getResult(10, TimeUnit.SECONDS, UpgradeResult.class);
      assertThat(result.memberVersions())
          .containsOnly(Map.entry("m1", TARGET), Map.entry("m2", TARGET), Map.entry("m3", TARGET));
      try (ClusterProbe probe = new ClusterProbe(sandbox.cluster())) {
        assertThat(probe.versions())
            .containsOnly(
                Map.entry("m1", TARGET), Map.entry("m2", TARGET), Map.entry("m3", TARGET));
      }
      List<?> controls =
          (List<?>)
              client
                  .newUntypedWorkflowStub(CHANGE)
                  .describe()
                  .getMemo(RunbookWorkflow.CONTROLS_MEMO, List.class);
      assertThat(controls)
          .as("the approval came from the UI's signal")
          .singleElement()
          .asString()
          .endsWith("approve by " + APPROVER);
      Payload startInput =
          client
              .fetchHistory(CHANGE)
              .getHistory()
              .getEvents(0)
              .getWorkflowExecutionStartedEventAttributes()
              .getInput()
              .getPayloads(0);
      assertThat(startInput.getMetadataOrThrow("encoding").toStringUtf8())
          .as("the UI encoded the input through the codec endpoint before starting")
          .isEqualTo("binary/encrypted");

      Throwable refused =
          catchThrowable(
              () ->
                  client
                      .newUntypedWorkflowStub(WRONG_ID)
                      .getResult(10, TimeUnit.SECONDS, UpgradeResult.class));
      assertThat(refused).isInstanceOf(WorkflowFailedException.class);
      assertThat(Failures.rootType(refused)).isEqualTo(FailureType.WrongWorkflowId.name());
    }
  }

  /** The last run's screenshots removed, so that each file is of this run. */
  private static void emptyDirectory(Path dir) throws Exception {
    Files.createDirectories(dir);
    try (var files = Files.list(dir)) {
      for (Path f : files.toList()) Files.delete(f);
    }
  }

  /** playwright-core as fetch-browser.sh caches it, at deploy/browser/package.json's version. */
  private static Path playwrightModules() throws Exception {
    String version =
        JSON.readTree(Path.of("../deploy/browser/package.json").toFile())
            .path("dependencies")
            .path("playwright-core")
            .asText();
    Path modules =
        EtcdReleases.dir()
            .resolveSibling("browser")
            .resolve("playwright-core-" + version)
            .resolve("node_modules");
    if (!Files.isDirectory(modules.resolve("playwright-core"))) {
      throw new IllegalStateException(
          "playwright-core "
              + version
              + " is not cached in "
              + modules
              + "; run deploy/scripts/fetch-browser.sh");
    }
    return modules;
  }

  /**
   * The real Temporal server, its UI decoding through a codec proxy that holds a viewer token, and
   * the product's worker and API on it with encrypted payloads and search attributes.
   */
  private record Runbooks(CodecProxy proxy, TemporalDevServer temporal, ApplicationContext context)
      implements AutoCloseable {

    static Runbooks start(Path dir, Sandbox sandbox) throws Exception {
      int apiPort = Ports.free();
      CodecProxy proxy =
          CodecProxy.startForUi(
              URI.create("http://127.0.0.1:" + apiPort + "/api/v1/codec"), CODEC.secret());
      TemporalDevServer temporal = null;
      try {
        temporal = TemporalDevServer.start(dir.resolve("temporal"), proxy.endpoint());
        proxy.allowOrigin(temporal.webUi());
        ApplicationContext context =
            Main.start(
                List.of("worker", "api"),
                Map.of(
                    "runbooks.api.tokens-file",
                    TestTokens.write(dir.resolve("api-tokens.yaml"), CODEC).toString(),
                    "runbooks.codec.keys-file",
                    TestCodecKeys.write(dir.resolve("codec-keys.yaml"), "ui").toString(),
                    "runbooks.inventory",
                    sandbox.inventoryFile().toString(),
                    "runbooks.task-queue",
                    TASK_QUEUE,
                    "runbooks.search-attributes.enabled",
                    true,
                    "temporal.address",
                    temporal.address(),
                    "micronaut.server.port",
                    apiPort));
        return new Runbooks(proxy, temporal, context);
      } catch (Exception | Error e) {
        if (temporal != null) temporal.close();
        proxy.close();
        throw e;
      }
    }

    String log() {
      return temporal.log();
    }

    @Override
    public void close() {
      try {
        context.close();
      } finally {
        temporal.close();
        proxy.close();
      }
    }
  }

  /** A Node script driving Chromium, given its settings as one JSON argument. */
  private static final class Browser {

    record Outcome(int exit, String log) {}

    static Outcome run(
        Path modules, Path script, Map<String, String> settings, Path log, Duration timeout)
        throws Exception {
      ProcessBuilder node =
          new ProcessBuilder("node", script.toString(), JSON.writeValueAsString(settings))
              .redirectErrorStream(true)
              .redirectOutput(log.toFile());
      node.environment().put("NODE_PATH", modules.toString());
      node.environment().put("CHROMIUM", CHROMIUM.toString());
      Process process = node.start();
      try {
        if (!process.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
          process.descendants().forEach(ProcessHandle::destroyForcibly);
          process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
          return new Outcome(-1, "(timed out after " + timeout + ")\n" + Files.readString(log));
        }
      } finally {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
      }
      return new Outcome(process.exitValue(), Files.readString(log));
    }
  }
}
