package io.etcdrunbooks.worker;

import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import java.time.Instant;

/**
 * Logback's JSON encoder (one object per line: timestamp, level, thread, logger, the MDC with
 * Temporal's {@code WorkflowId} and {@code RunId} and the runbook's {@code etcd_cluster} and {@code
 * phase}, the message, the exception) with a readable {@code date} (ISO-8601, UTC) beside the epoch
 * milliseconds: chosen with {@code ETCD_RUNBOOKS_LOG_FORMAT=json} (logback.xml).
 */
public class JsonLogEncoder extends JsonEncoder {

  @Override
  protected void appendCustomFields(StringBuilder json, ILoggingEvent event) {
    int last = json.length() - 1;
    while (last >= 0 && Character.isWhitespace(json.charAt(last))) last--;
    if (last >= 0 && json.charAt(last) != '{' && json.charAt(last) != ',') json.append(',');
    json.append("\"date\":\"").append(Instant.ofEpochMilli(event.getTimeStamp())).append('"');
  }
}
