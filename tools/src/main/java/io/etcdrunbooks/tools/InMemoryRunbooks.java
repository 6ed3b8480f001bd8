package io.etcdrunbooks.tools;

import io.etcdrunbooks.testkit.EmbeddedTemporal;
import io.etcdrunbooks.testkit.Ports;
import io.etcdrunbooks.worker.Main;
import io.micronaut.context.ApplicationContext;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The product's roles started in this process as {@code etcd-runbooks run} starts them, on
 * Temporal's in-memory test server, which this process runs and passes to them as {@code
 * temporal.address}: what the demo and the bench run. The product itself never starts a server.
 */
final class InMemoryRunbooks implements AutoCloseable {

  private final EmbeddedTemporal temporal;
  private final ApplicationContext context;

  private InMemoryRunbooks(EmbeddedTemporal temporal, ApplicationContext context) {
    this.temporal = temporal;
    this.context = context;
  }

  /**
   * @param properties settings beside Temporal's; the HTTP server gets a free port unless they name
   *     one
   */
  static InMemoryRunbooks start(List<String> roles, Map<String, Object> properties) {
    EmbeddedTemporal temporal = EmbeddedTemporal.start(Ports.free());
    Map<String, Object> all = new HashMap<>(properties);
    all.put("temporal.address", temporal.address());
    // the server ends with this process: no other worker can outlive this one and wait for its
    // sticky queue
    all.put("temporal.sticky-execution", "true");
    all.putIfAbsent("micronaut.server.port", Ports.free());
    try {
      return new InMemoryRunbooks(temporal, Main.start(roles, all));
    } catch (RuntimeException e) {
      temporal.close();
      throw e;
    }
  }

  ApplicationContext context() {
    return context;
  }

  @Override
  public void close() {
    context.close();
    temporal.close();
  }
}
