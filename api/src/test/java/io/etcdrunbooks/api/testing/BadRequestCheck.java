package io.etcdrunbooks.api.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.temporal.api.workflowservice.v1.ListClosedWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import io.temporal.client.WorkflowClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Sends a {@link BadRequest} to an API and checks the answer: the status, a message with the
 * expected words, no token secret echoed, none of the framework's words or shape in the body, and
 * no workflow in Temporal. "Nothing started" is read from Temporal's own lists of open and closed
 * executions, not from the API: the Temporal behind {@code client} must hold no execution at all
 * after every request.
 */
public final class BadRequestCheck {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final String api;
  private final WorkflowClient client;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  /**
   * @param api the API's base URL, without a trailing slash
   * @param client a client of the Temporal the API starts runbooks in
   */
  public BadRequestCheck(String api, WorkflowClient client) {
    this.api = api.endsWith("/") ? api.substring(0, api.length() - 1) : api;
    this.client = client;
  }

  public void check(BadRequest bad) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(api + bad.path()));
    if (bad.contentType() != null) request.header("Content-Type", bad.contentType());
    if (bad.authorization() != null) request.header("Authorization", bad.authorization());
    bad.headers().forEach(request::header);
    request.method(
        bad.method(),
        bad.body() == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(bad.body()));
    HttpResponse<String> response =
        http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    String message = messageOf(response.body());
    assertThat(response.statusCode())
        .as("%s: %s", bad.name(), response.body())
        .isEqualTo(bad.status());
    assertThat(message).as("%s: the answer's message", bad.name()).contains(bad.words());
    assertThat(message)
        .as("%s: no secret echoed", bad.name())
        .doesNotContain(
            TestTokens.ALL.stream().map(TestTokens.Token::secret).toArray(String[]::new));
    assertThat(response.body())
        .as("%s: the API's own words and shape", bad.name())
        .doesNotContain(
            "UNWRAP_SINGLE_VALUE_ARRAYS",
            "StreamReadConstraints",
            "DeserializationFeature",
            "com.fasterxml",
            "io.etcdrunbooks.",
            "java.lang",
            "_embedded",
            "_links");
    assertThat(executionsInTemporal()).as("%s: workflows in Temporal", bad.name()).isEmpty();
  }

  /** The ids of every open and closed workflow execution in the client's namespace. */
  public List<String> executionsInTemporal() {
    var stub = client.getWorkflowServiceStubs().blockingStub();
    String namespace = client.getOptions().getNamespace();
    List<String> ids = new ArrayList<>();
    stub.listOpenWorkflowExecutions(
            ListOpenWorkflowExecutionsRequest.newBuilder().setNamespace(namespace).build())
        .getExecutionsList()
        .forEach(e -> ids.add(e.getExecution().getWorkflowId()));
    stub.listClosedWorkflowExecutions(
            ListClosedWorkflowExecutionsRequest.newBuilder().setNamespace(namespace).build())
        .getExecutionsList()
        .forEach(e -> ids.add(e.getExecution().getWorkflowId()));
    return ids;
  }

  /** Slack's signature, computed here rather than by the code under test. */
  public static String slackSignature(String secret, String timestamp, String body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return "v0="
          + HexFormat.of()
              .formatHex(
                  mac.doFinal(("v0:" + timestamp + ":" + body).getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The answer's "message", and Micronaut's own error details when it answered before our code ran.
   */
  static String messageOf(String body) {
    if (body == null || body.isBlank()) return "";
    try {
      JsonNode json = JSON.readTree(body);
      StringBuilder text = new StringBuilder(json.path("message").asText(""));
      for (JsonNode error : json.path("_embedded").path("errors"))
        text.append(" | ").append(error.path("message").asText(""));
      return text.toString();
    } catch (Exception e) {
      return body;
    }
  }
}
