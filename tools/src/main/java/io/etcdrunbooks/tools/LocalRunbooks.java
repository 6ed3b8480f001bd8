package io.etcdrunbooks.tools;

import io.etcdrunbooks.testkit.EmbeddedTemporal;
import io.etcdrunbooks.testkit.Ports;
import io.etcdrunbooks.testkit.TemporalServer;
import io.etcdrunbooks.worker.Main;
import io.micronaut.context.ApplicationContext;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The product's roles started in this process as {@code etcd-runbooks run} starts them, on a
 * Temporal server this process started and passes to them as {@code temporal.address}: the real one
 * ({@code temporal server start-dev}) or Temporal's in-memory test server. What the demo and the
 * bench run; the product itself never starts a server.
 */
final class LocalRunbooks implements AutoCloseable {

  private final TemporalServer temporal;
  private final ApplicationContext context;
  private boolean closed;

  private LocalRunbooks(TemporalServer temporal, ApplicationContext context) {
    this.temporal = temporal;
    this.context = context;
  }

  /** On Temporal's in-memory test server, started here. */
  static LocalRunbooks start(List<String> roles, Map<String, Object> properties) {
    EmbeddedTemporal temporal = EmbeddedTemporal.start(Ports.free());
    Map<String, Object> all = new HashMap<>(properties);
    // the server ends with this process: no other worker can outlive this one and wait for its
    // sticky queue
    all.put("temporal.sticky-execution", "true");
    return start(temporal, roles, all);
  }

  /**
   * On {@code temporal}, which is closed with them.
   *
   * @param properties settings beside Temporal's; the HTTP server gets a free port unless they name
   *     one
   */
  static LocalRunbooks start(
      TemporalServer temporal, List<String> roles, Map<String, Object> properties) {
    Map<String, Object> all = new HashMap<>(properties);
    all.put("temporal.address", temporal.address());
    all.putIfAbsent("micronaut.server.port", Ports.free());
    try {
      return new LocalRunbooks(temporal, Main.start(roles, all));
    } catch (RuntimeException e) {
      temporal.close();
      throw e;
    }
  }

  ApplicationContext context() {
    return context;
  }

  @Override
  public synchronized void close() {
    if (closed) return;
    closed = true;
    context.close();
    temporal.close();
  }
}
