package io.etcdrunbooks.api;

import java.util.List;
import java.util.Map;

/**
 * The body Alertmanager posts to a webhook_config receiver (payload version 4). Fields this
 * endpoint does not use are kept so the shape stays recognisable; unknown fields are ignored.
 */
public record AlertmanagerPayload(
    String version,
    String groupKey,
    Integer truncatedAlerts,
    String status,
    String receiver,
    Map<String, String> groupLabels,
    Map<String, String> commonLabels,
    Map<String, String> commonAnnotations,
    String externalURL,
    List<Alert> alerts) {

  public static final String SUPPORTED_VERSION = "4";

  /** One alert of the group; {@code status} is {@code firing} or {@code resolved}. */
  public record Alert(
      String status,
      Map<String, String> labels,
      Map<String, String> annotations,
      String startsAt,
      String endsAt,
      String generatorURL,
      String fingerprint) {

    public Alert {
      labels = labels == null ? Map.of() : labels;
      annotations = annotations == null ? Map.of() : annotations;
    }

    public String label(String name) {
      return labels.get(name);
    }
  }
}
