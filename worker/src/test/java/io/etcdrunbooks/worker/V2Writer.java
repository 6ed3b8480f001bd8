package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes Kubernetes-like data into a member's v2 store through its v2 API, as Kubernetes 1.5 did:
 * objects under /registry, events with a TTL.
 */
final class V2Writer {

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
  private final String clientUrl;

  V2Writer(String clientUrl) {
    this.clientUrl = clientUrl;
  }

  void put(String key, String value, long ttlSeconds) throws Exception {
    String form =
        "value="
            + URLEncoder.encode(value, StandardCharsets.UTF_8)
            + (ttlSeconds > 0 ? "&ttl=" + ttlSeconds : "");
    HttpResponse<String> answer =
        http.send(
            HttpRequest.newBuilder(URI.create(clientUrl + "/v2/keys" + key))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .PUT(HttpRequest.BodyPublishers.ofString(form))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as(answer.body()).isIn(200, 201);
  }

  int status(String key) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create(clientUrl + "/v2/keys" + key)).build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  /**
   * {@code objects} objects spread over four resources and {@code events} events with a TTL;
   * returns every key written with its value.
   */
  Map<String, String> kubernetes15(int objects, int events, long eventTtlSeconds) throws Exception {
    Map<String, String> written = new LinkedHashMap<>();
    String[] resources = {
      "pods/default", "services/specs/default", "minions", "secrets/kube-system"
    };
    for (int i = 0; i < objects; i++) {
      String key = "/registry/" + resources[i % resources.length] + "/obj-" + i;
      String value =
          "{\"kind\":\"Object\",\"metadata\":{\"name\":\"obj-" + i + "\"},\"n\":" + i + "}";
      put(key, value, 0);
      written.put(key, value);
    }
    for (int i = 0; i < events; i++) {
      String key = "/registry/events/default/obj-" + i + ".e" + i;
      String value = "{\"kind\":\"Event\",\"reason\":\"Scheduled\",\"n\":" + i + "}";
      put(key, value, eventTtlSeconds);
      written.put(key, value);
    }
    return written;
  }
}
