package io.etcdrunbooks.api.slack;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.api.testing.BadRequestCheck;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * Clicks on this server's buttons as Slack sends them to {@code POST /slack/interactions}: the
 * payload of {@link #payload} for a user, signed with the app's secret, its response URL under
 * {@code responseUrlPrefix}; each answered within Slack's 3 s.
 */
final class SlackClicks {

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final int apiPort;
  private final String secret;
  private final String responseUrlPrefix;

  SlackClicks(int apiPort, String secret, String responseUrlPrefix) {
    this.apiPort = apiPort;
    this.secret = secret;
    this.responseUrlPrefix = responseUrlPrefix;
  }

  HttpResponse<String> click(String user, SlackButtons.Action action, SlackButtons.Target run)
      throws Exception {
    return click(user, action.actionId(), run.value());
  }

  /** A click on the button with this action id and value, as a message carried it. */
  HttpResponse<String> click(String user, String actionId, String value) throws Exception {
    byte[] body = body(user, actionId, value);
    String now = String.valueOf(Instant.now().getEpochSecond());
    return send(body, now, sign(secret, now, body));
  }

  byte[] body(String user, String actionId, String value) {
    String payload =
        payload(actionId, value)
            .replace("U024BE7LH", user)
            .replace("\"alice\"", "\"ops-" + user.toLowerCase() + "\"")
            .replace(
                "https://hooks.slack.com/actions/T1/1/abc",
                responseUrlPrefix + "actions/T1/" + UUID.randomUUID());
    return ("payload=" + URLEncoder.encode(payload, StandardCharsets.UTF_8))
        .getBytes(StandardCharsets.US_ASCII);
  }

  HttpResponse<String> send(byte[] body, String timestamp, String signature) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + apiPort + "/slack/interactions"))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .timeout(Duration.ofSeconds(10))
            .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (timestamp != null) request.header("X-Slack-Request-Timestamp", timestamp);
    if (signature != null) request.header("X-Slack-Signature", signature);
    long started = System.nanoTime();
    HttpResponse<String> response =
        http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(Duration.ofNanos(System.nanoTime() - started))
        .as("answered within Slack's 3 s")
        .isLessThan(Duration.ofSeconds(3));
    return response;
  }

  /** Slack's block_actions payload, trimmed to what matters and some of what does not. */
  static String payload(String actionId, String value) {
    return """
        {"type":"block_actions","token":"verification-token",
         "user":{"id":"U024BE7LH","username":"alice","name":"alice","team_id":"T1"},
         "api_app_id":"A1","team":{"id":"T1","domain":"example"},
         "container":{"type":"message","message_ts":"1700000000.000100","channel_id":"C1"},
         "channel":{"id":"C1","name":"etcd-ops"},
         "response_url":"https://hooks.slack.com/actions/T1/1/abc",
         "actions":[{"action_id":"%s","block_id":"runbook-approval","type":"button",
                     "text":{"type":"plain_text","text":"Approve"},"value":"%s",
                     "action_ts":"1700000001.000200"}]}
        """
        .formatted(actionId, value);
  }

  static String sign(String secret, String timestamp, byte[] body) {
    return BadRequestCheck.slackSignature(
        secret, timestamp, new String(body, StandardCharsets.US_ASCII));
  }
}
