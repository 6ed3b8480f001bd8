package io.etcdrunbooks.workflows.common;

import io.temporal.api.common.v1.Payload;
import io.temporal.common.context.ContextPropagator;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.GlobalDataConverter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.MDC;

/**
 * The cluster and phase of the runbook a log line comes from, in the logging MDC beside Temporal's
 * own {@code WorkflowId} and {@code RunId}: set in the workflow thread as the runbook starts and
 * moves between phases ({@link ProgressTracker}), and carried to its activities (and child
 * runbooks) in Temporal's headers, so that every line a runbook writes can be traced to it (the
 * JSON log format prints the MDC). Headers are not compared on replay: no patch is needed.
 */
public final class RunbookLogContext implements ContextPropagator {

  public static final String CLUSTER = "etcd_cluster";
  public static final String PHASE = "phase";
  static final List<String> KEYS = List.of(CLUSTER, PHASE);

  private final DataConverter converter;

  /**
   * @param converter the client's (with the payload codec when there is one: the cluster name is
   *     then encrypted in the headers the history keeps, as in the inputs)
   */
  public RunbookLogContext(DataConverter converter) {
    this.converter = converter;
  }

  public RunbookLogContext() {
    this(GlobalDataConverter.get());
  }

  static void put(String key, String value) {
    if (value == null || value.isEmpty()) MDC.remove(key);
    else MDC.put(key, value);
  }

  @Override
  public String getName() {
    return "etcd-runbooks-log-context";
  }

  @Override
  public Map<String, Payload> serializeContext(Object context) {
    Map<String, Payload> headers = new HashMap<>();
    @SuppressWarnings("unchecked")
    Map<String, String> values = (Map<String, String>) context;
    values.forEach((k, v) -> headers.put(k, converter.toPayload(v).orElseThrow()));
    return headers;
  }

  @Override
  public Object deserializeContext(Map<String, Payload> header) {
    Map<String, String> values = new HashMap<>();
    for (String key : KEYS) {
      Payload payload = header.get(key);
      if (payload != null)
        values.put(key, converter.fromPayload(payload, String.class, String.class));
    }
    return values;
  }

  @Override
  public Object getCurrentContext() {
    Map<String, String> values = new HashMap<>();
    for (String key : KEYS) {
      String value = MDC.get(key);
      if (value != null) values.put(key, value);
    }
    return values;
  }

  /** On an activity's (or child workflow's) thread: a key absent from the header is cleared. */
  @Override
  public void setCurrentContext(Object context) {
    @SuppressWarnings("unchecked")
    Map<String, String> values = (Map<String, String>) context;
    for (String key : KEYS) put(key, values.get(key));
  }
}
