package io.etcdrunbooks.testkit;

import io.etcdrunbooks.workflows.common.RunbookSearchAttributes;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real Temporal server: the official CLI's {@code temporal server start-dev} (server, SQLite
 * persistence and Web UI in one process), as deploy/scripts/fetch-temporal.sh caches it, on
 * 127.0.0.1 only, with the runbooks' search attributes registered at start. Its SQLite file is in
 * the directory it is given, so that a server killed with SIGKILL ({@link #kill}) and started again
 * ({@link #restart}) finds every workflow where it was; its output goes to {@code
 * temporal-server.log} there. For the demo and the tests that need a real server; the product only
 * ever connects to one.
 */
public final class TemporalDevServer implements TemporalServer {

  /** The CLI version fetch-temporal.sh pins (checked against the script by a test). */
  public static final String CLI_VERSION = "1.9.1";

  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private final Path dir;
  private final List<String> command;
  private final int port;
  private final int uiPort;
  private Process process;
  private Thread stopAtExit;

  private TemporalDevServer(Path dir, List<String> command, int port, int uiPort) {
    this.dir = dir;
    this.command = command;
    this.port = port;
    this.uiPort = uiPort;
  }

  /** A server with its Web UI on free ports, its database in {@code dir}. */
  public static TemporalDevServer start(Path dir) {
    return start(dir, null);
  }

  /**
   * As {@link #start(Path)}, the Web UI decoding payloads through {@code codecEndpoint} (the API's
   * {@code /api/v1/codec}) when it is not null.
   */
  public static TemporalDevServer start(Path dir, String codecEndpoint) {
    for (int attempt = 1; ; attempt++) {
      TemporalDevServer server = onFreePorts(dir, codecEndpoint);
      try {
        server.launch();
        return server;
      } catch (IllegalStateException e) {
        // a port found free was taken before the server bound it (another fork's server or
        // member): the server exits at once saying so; new ports, a few times
        if (attempt == START_ATTEMPTS || !server.log().contains("address already in use")) throw e;
      }
    }
  }

  private static final int START_ATTEMPTS = 3;

  /**
   * A server whose frontend listens on {@code port} (a test's client already points there), its Web
   * UI on a free port, its database in {@code dir}.
   */
  public static TemporalDevServer startOn(Path dir, int port) {
    TemporalDevServer server = onPorts(dir, null, port);
    server.launch();
    return server;
  }

  private static TemporalDevServer onFreePorts(Path dir, String codecEndpoint) {
    return onPorts(dir, codecEndpoint, Ports.free());
  }

  private static TemporalDevServer onPorts(Path dir, String codecEndpoint, int port) {
    int uiPort = Ports.free();
    List<String> command = new ArrayList<>();
    command.addAll(
        List.of(
            binary().toString(),
            "server",
            "start-dev",
            "--ip",
            "127.0.0.1",
            "--port",
            Integer.toString(port),
            "--ui-port",
            Integer.toString(uiPort),
            "--http-port",
            Integer.toString(Ports.free()),
            "--metrics-port",
            Integer.toString(Ports.free()),
            "--db-filename",
            dir.resolve("temporal.db").toString(),
            "--ui-disable-news-fetch",
            "--log-level",
            "warn"));
    for (var key : RunbookSearchAttributes.ALL) {
      command.add("--search-attribute");
      command.add(key.getName() + "=Keyword");
    }
    if (codecEndpoint != null) {
      command.add("--ui-codec-endpoint");
      command.add(codecEndpoint);
    }
    return new TemporalDevServer(dir, List.copyOf(command), port, uiPort);
  }

  /** The cached CLI binary; fails naming the script that fetches it. */
  public static Path binary() {
    Path binary =
        EtcdReleases.dir().resolveSibling("temporal").resolve(CLI_VERSION).resolve("temporal");
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException(
          "the Temporal CLI "
              + CLI_VERSION
              + " is not cached at "
              + binary
              + "; run deploy/scripts/fetch-temporal.sh");
    }
    return binary;
  }

  @Override
  public String address() {
    return "127.0.0.1:" + port;
  }

  /** The Web UI's address. */
  public String webUi() {
    return "http://127.0.0.1:" + uiPort;
  }

  /** Its output since the first start, for failure messages. */
  public String log() {
    try {
      String log = Files.readString(logFile());
      return log.length() > 6000 ? log.substring(log.length() - 6000) : log;
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  /** SIGKILL, as a host or container loss would end it; the database file stays. */
  public void kill() {
    process.destroyForcibly();
    awaitExit(process);
    forgetAtExit();
  }

  /** Started again on the same ports and database, after {@link #kill} or {@link #close}. */
  public void restart() {
    if (process.isAlive()) throw new IllegalStateException("the server still runs: kill it first");
    launch();
  }

  @Override
  public void close() {
    forgetAtExit();
    if (process == null || !process.isAlive()) return;
    process.destroy(); // SIGTERM: the server stops in order
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) process.destroyForcibly();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
    awaitExit(process);
  }

  private void launch() {
    try {
      Files.createDirectories(dir);
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(Redirect.appendTo(logFile().toFile()))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + command.get(0), e);
    }
    // a JVM that ends without close() (a demo interrupted, a test fork killed) takes its server
    // with it instead of leaving it listening
    Process started = process;
    stopAtExit = new Thread(started::destroy, "temporal-dev-server-stop");
    Runtime.getRuntime().addShutdownHook(stopAtExit);
    awaitFrontend();
  }

  private void forgetAtExit() {
    if (stopAtExit == null) return;
    try {
      Runtime.getRuntime().removeShutdownHook(stopAtExit);
    } catch (IllegalStateException shuttingDown) {
      // the hook runs anyway
    }
    stopAtExit = null;
  }

  /** Until the frontend answers GetSystemInfo: the namespace and search attributes exist then. */
  private void awaitFrontend() {
    WorkflowServiceStubs stubs =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder()
                .setTarget(address())
                .setRpcTimeout(Duration.ofSeconds(2))
                .build());
    Instant deadline = Instant.now().plus(START_TIMEOUT);
    try {
      while (true) {
        if (!process.isAlive()) {
          throw new IllegalStateException(
              "temporal server start-dev exited with "
                  + process.exitValue()
                  + "; its log:\n"
                  + log());
        }
        try {
          stubs.blockingStub().getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
          return;
        } catch (RuntimeException notYet) {
          if (Instant.now().isAfter(deadline)) {
            close();
            throw new IllegalStateException(
                "temporal server start-dev did not answer on "
                    + address()
                    + " within "
                    + START_TIMEOUT
                    + "; its log:\n"
                    + log(),
                notYet);
          }
        }
        TimeUnit.MILLISECONDS.sleep(100);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      close();
      throw new IllegalStateException("interrupted while the Temporal server started", e);
    } finally {
      stubs.shutdownNow();
    }
  }

  private Path logFile() {
    return dir.resolve("temporal-server.log");
  }

  private static void awaitExit(Process process) {
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the Temporal server did not exit within 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
