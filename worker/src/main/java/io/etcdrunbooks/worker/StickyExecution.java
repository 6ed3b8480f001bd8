package io.etcdrunbooks.worker;

import io.grpc.StatusRuntimeException;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the worker asks for sticky execution ({@code temporal.sticky-execution}: {@code auto},
 * {@code true} or {@code false}). A real Temporal server hands a dead worker's sticky tasks to
 * another worker after a few seconds; Temporal's Java test server (the tools' {@code temporal}
 * command) never does, so a runbook whose worker was killed would hang there. {@code auto} turns it
 * off when the server is a test server in another process, told by the empty server version it
 * reports in GetSystemInfo (a real server always sends its version), and keeps it on otherwise. A
 * test server embedded in this process dies with this worker, so it keeps it on too. An explicit
 * {@code true} or {@code false} wins: the operator knows whether other workers can die.
 */
final class StickyExecution {

  static final String AUTO = "auto";

  private static final Logger LOG = LoggerFactory.getLogger(StickyExecution.class);

  private StickyExecution() {}

  /** Refuses a setting other than auto, true or false (or none), naming it. */
  static void check(String setting) {
    explicit(setting);
  }

  /** true or false when the setting says so; null for auto. */
  private static Boolean explicit(String setting) {
    String value = setting == null ? AUTO : setting.strip().toLowerCase(Locale.ROOT);
    return switch (value) {
      case "true" -> true;
      case "false" -> false;
      case AUTO -> null;
      default ->
          throw new IllegalStateException(
              "temporal.sticky-execution (TEMPORAL_STICKY_EXECUTION) must be auto, true or false, got '"
                  + setting
                  + "'");
    };
  }

  /**
   * @param embedded the server runs in this process (only in the tests)
   */
  static boolean decide(String setting, boolean embedded, WorkflowServiceStubs service) {
    Boolean explicit = explicit(setting);
    if (explicit != null) return explicit;
    if (embedded) return true;
    String version;
    try {
      version =
          service
              .blockingStub()
              .withDeadlineAfter(10, TimeUnit.SECONDS)
              .getSystemInfo(GetSystemInfoRequest.getDefaultInstance())
              .getServerVersion();
    } catch (StatusRuntimeException e) {
      LOG.warn(
          "sticky execution OFF: Temporal did not say which server it is ({}), and a Java test"
              + " server would never hand a dead worker's runbooks on. Set"
              + " temporal.sticky-execution=true for a real server",
          e.getStatus().getCode());
      return false;
    }
    if (version.isEmpty()) {
      LOG.warn(
          "sticky execution OFF: Temporal is Temporal's Java test server (it reports no server"
              + " version), which never hands a dead worker's runbooks to another worker; off,"
              + " any worker picks them up. temporal.sticky-execution=true keeps it on");
      return false;
    }
    LOG.info("Temporal server {}: sticky execution on", version);
    return true;
  }
}
