package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
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

  private static final ObjectMapper JSON = new ObjectMapper();

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

  /** As {@link #put}, for a writer that carries on while members stop: false when it failed. */
  boolean tryPut(String key, String value, long ttlSeconds) {
    try {
      put(key, value, ttlSeconds);
      return true;
    } catch (Exception | AssertionError e) {
      return false;
    }
  }

  /**
   * The key's node as the v2 API answers it (value, createdIndex, modifiedIndex, expiration), less
   * the seconds left of its TTL, which move on their own: equal answers mean the key was not
   * touched.
   */
  String node(String key) throws Exception {
    HttpResponse<String> answer =
        http.send(
            HttpRequest.newBuilder(URI.create(clientUrl + "/v2/keys" + key)).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as("%s: %s", key, answer.body()).isEqualTo(200);
    ObjectNode node = (ObjectNode) JSON.readTree(answer.body()).get("node");
    node.remove("ttl");
    return node.toString();
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
