package io.etcdrunbooks.activities.backup;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.deser.DeserializationProblemHandler;
import java.io.IOException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a worker reads what another worker stored (backup records, the last drill): a field it does
 * not know is skipped, and logged once per type and field, instead of refusing the whole record.
 * While the worker rolls, two releases share the backup directory, the off-site host and the
 * bucket, and a record written by the newer one must still be restored, kept by retention and
 * counted by the metrics on the older one. Runbook requests, typed by hand, stay strict ({@code
 * RunbookPayloads}), and so does the operator's inventory.
 */
final class FieldsOfNewerReleases extends DeserializationProblemHandler {

  private static final Logger log = LoggerFactory.getLogger(FieldsOfNewerReleases.class);

  /** Enough for any release's additions; bounds what a directory of foreign JSON can make. */
  private static final int MAX_LOGGED = 100;

  private final Set<String> logged = ConcurrentHashMap.newKeySet();

  @Override
  public boolean handleUnknownProperty(
      DeserializationContext context,
      JsonParser parser,
      JsonDeserializer<?> deserializer,
      Object beanOrClass,
      String field)
      throws IOException {
    String type =
        beanOrClass instanceof Class<?> c
            ? c.getSimpleName()
            : beanOrClass == null ? "?" : beanOrClass.getClass().getSimpleName();
    if (logged.size() < MAX_LOGGED && logged.add(type + "." + field)) {
      log.info(
          "a stored {} has the field '{}', which this release does not know (written by a newer"
              + " release?): ignored, the rest is read (logged once)",
          type,
          field);
    }
    parser.skipChildren();
    return true;
  }
}
