package io.etcdrunbooks.activities.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The few Kubernetes API calls the runbooks make, over the JDK's HTTP client with the TLS and the
 * credentials of a {@link Kubeconfig}. Errors name the URL and the status, never the credentials.
 */
final class KubeApiClient {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TIMEOUT = Duration.ofSeconds(10);

  /** The apiserver answered with a status other than 2xx. */
  static final class ApiError extends IOException {
    private static final long serialVersionUID = 1L;
    final int status;

    ApiError(String method, URI uri, int status, String body) {
      super(method + " " + uri + " answered HTTP " + status + ": " + reason(body));
      this.status = status;
    }

    boolean conflict() {
      return status == 409;
    }

    /** Retrying does not mend it: the credentials, their rights or the object are wrong. */
    boolean hopeless() {
      return status == 401 || status == 403 || status == 404 || status == 422;
    }

    private static String reason(String body) {
      try {
        String message = JSON.readTree(body).path("message").asText("");
        if (!message.isEmpty()) return message;
      } catch (IOException notJson) {
        // the body as it is, shortened
      }
      String line = body.strip().lines().findFirst().orElse("");
      return line.length() > 200 ? line.substring(0, 200) : line;
    }
  }

  private final Kubeconfig config;
  private final HttpClient http;

  KubeApiClient(Kubeconfig config) {
    this.config = config;
    this.http = HttpClient.newBuilder().connectTimeout(TIMEOUT).sslContext(config.ssl()).build();
  }

  JsonNode get(String path) throws IOException {
    return send("GET", path, HttpRequest.BodyPublishers.noBody());
  }

  /**
   * PUT of the whole object; a stale {@code metadata.resourceVersion} gets 409 ({@link
   * ApiError#conflict()}).
   */
  JsonNode put(String path, JsonNode object) throws IOException {
    return send("PUT", path, HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(object)));
  }

  private JsonNode send(String method, String path, HttpRequest.BodyPublisher body)
      throws IOException {
    URI uri = URI.create(config.server() + path);
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(TIMEOUT)
            .header("Accept", "application/json")
            .header("Content-Type", "application/json")
            .method(method, body);
    if (config.bearerToken() != null)
      request.header("Authorization", "Bearer " + config.bearerToken());
    HttpResponse<String> answer;
    try {
      answer = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted: " + method + " " + uri, e);
    }
    if (answer.statusCode() / 100 != 2)
      throw new ApiError(method, uri, answer.statusCode(), answer.body());
    return JSON.readTree(answer.body());
  }
}
