package io.etcdrunbooks.worker;

import io.etcdrunbooks.activities.backup.BackupDecryption;
import io.etcdrunbooks.runtime.schedules.RunbookSchedules;
import io.etcdrunbooks.runtime.schedules.SchedulesConfig;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import io.temporal.client.WorkflowClient;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * The etcd-runbooks command: {@code run} (the default) and {@code decrypt-backup}; each one's usage
 * and options are in {@link Subcommand}, and {@code etcd-runbooks [COMMAND] --help} prints them.
 * The demo, the bench, the sandbox and an in-memory Temporal are the tools' command
 * (tools/target/etcd-runbooks-tools.jar), not the product's.
 */
public final class Main {

  private Main() {}

  public static void main(String[] args) throws Exception {
    Subcommand.Invocation invocation =
        Subcommand.parseOrExit("etcd-runbooks", Subcommand.ALL, "run", args);
    Map<String, String> options = invocation.options();
    switch (invocation.command().name()) {
      case "run" -> run(List.of(options.getOrDefault("roles", "worker,api").split(",")));
      default -> System.exit(decryptBackup(options));
    }
  }

  static int decryptBackup(Map<String, String> options) {
    for (String required : List.of("in", "out", "key-file", "key-id")) {
      if (!options.containsKey(required)) {
        System.err.println(
            "decrypt-backup needs --in, --out, --key-file and --key-id; --"
                + required
                + " is missing");
        return 2;
      }
    }
    try {
      BackupDecryption.decrypt(
          Path.of(options.get("in")),
          Path.of(options.get("out")),
          Path.of(options.get("key-file")),
          options.get("key-id"));
      System.out.println("decrypted " + options.get("in") + " into " + options.get("out"));
      return 0;
    } catch (IOException e) {
      System.err.println("cannot decrypt " + options.get("in") + ": " + e.getMessage());
      return 1;
    }
  }

  /**
   * Starts the roles in one Micronaut context and blocks until the process is stopped. A start that
   * fails (a secret file that does not load, a wrong setting) ends the process with status 1, its
   * reason on the first line of stderr.
   */
  static void run(List<String> roles) throws InterruptedException {
    ApplicationContext context;
    try {
      context = start(roles, Map.of());
    } catch (RuntimeException e) {
      System.err.println("etcd-runbooks cannot start: " + reason(e));
      e.printStackTrace();
      System.exit(1);
      return;
    }
    runUntilStopped(context::close);
  }

  /**
   * The innermost message: ours, written for the operator, rather than the bean path Micronaut
   * wraps it in.
   */
  static String reason(Throwable e) {
    String reason = String.valueOf(e.getMessage());
    for (Throwable cause = e; cause != null; cause = cause.getCause()) {
      if (cause.getMessage() != null) reason = cause.getMessage();
    }
    return reason;
  }

  /** Blocks until the process is asked to stop (SIGTERM, Ctrl-C), then runs {@code onStop}. */
  public static void runUntilStopped(Runnable onStop) throws InterruptedException {
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  onStop.run();
                  stopped.countDown();
                },
                "shutdown"));
    stopped.await();
  }

  /**
   * The inventory's Temporal Schedules, kept at every worker start once the worker polls
   * (runbooks.schedules.enabled): the inventory is the one place clusters are declared, so their
   * backups and drills follow it without a command to remember. A failure is logged and the worker
   * runs on; Temporal's Java test server (in process, tests and demo only) has no schedules.
   */
  private static void keepSchedules(ApplicationContext context) {
    if (!context.getBean(SchedulesConfig.class).enabled()) return;
    if (context.getBean(TemporalFactory.TemporalEndpoint.class).inProcess()) {
      System.out.println("Temporal Schedules not kept: the in-process test server has none");
      return;
    }
    try {
      context.getBean(RunbookSchedules.class).reconcile();
    } catch (RuntimeException e) {
      org.slf4j.LoggerFactory.getLogger(Main.class)
          .error(
              "the inventory's Temporal Schedules were not kept (they are at the next worker start): {}",
              reason(e));
    }
  }

  /** Starts a context with the given roles and extra properties; the caller closes it. */
  public static ApplicationContext start(List<String> roles, Map<String, Object> properties) {
    for (String role : roles) {
      if (!role.equals("worker") && !role.equals("api")) {
        throw new IllegalArgumentException(
            "unknown role '" + role + "': use worker, api or worker,api");
      }
    }
    Map<String, Object> withRoles = new java.util.HashMap<>(properties);
    withRoles.put("runbooks.roles", String.join(",", roles));
    ApplicationContext context = ApplicationContext.builder().properties(withRoles).start();
    try {
      if (roles.contains("worker")) {
        // polls at once when Temporal answers, else once it does: the process serves /health
        // (not ready) meanwhile rather than exiting
        context.getBean(RunbookWorker.class).start(() -> keepSchedules(context));
      } else {
        // made now rather than at the first call, so its TLS files and codec keys are checked
        // before anything is served
        context.getBean(WorkflowClient.class);
      }
      // every process serves /health and /metrics; only one with the api role serves /api and
      // /slack (RolesFilter)
      EmbeddedServer server = context.getBean(EmbeddedServer.class);
      server.start();
      System.out.println(
          (roles.contains("api") ? "API" : "health and metrics")
              + " listening on "
              + server.getURL());
      return context;
    } catch (RuntimeException e) {
      context.close();
      throw e;
    }
  }
}
