package io.etcdrunbooks.api.slack;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Slack's chat.postMessage with the app's bot token (scope {@code chat:write}), which answers with
 * the message's {@code ts}: the thread that the rest of a runbook's progress is posted in. Never
 * follows redirects, and the token is sent to {@code runbooks.slack.api-url} only and never logged.
 */
@Singleton
public final class SlackChat {

  private static final Logger LOG = LoggerFactory.getLogger(SlackChat.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final SlackBotToken token;
  private final URI postMessage;
  private final HttpClient http =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(5))
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();

  SlackChat(SlackConfig config, SlackBotToken token) {
    this.token = token;
    this.postMessage = URI.create(config.apiUrl()).resolve("chat.postMessage");
  }

  /** A bot token is loaded, so messages can be posted to a channel. */
  public boolean available() {
    return token.authorization().isPresent();
  }

  /**
   * Posts one message; its {@code ts}, or empty when it was not posted (no token, Slack refused it,
   * or could not be reached; logged with Slack's error, such as not_in_channel).
   */
  public Optional<String> post(SlackMessage message) {
    Optional<String> authorization = token.authorization();
    if (authorization.isEmpty()) return Optional.empty();
    try {
      HttpRequest request =
          HttpRequest.newBuilder(postMessage)
              .timeout(Duration.ofSeconds(10))
              .header("Content-Type", "application/json; charset=utf-8")
              .header("Authorization", authorization.get())
              .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(message)))
              .build();
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      JsonNode answer = response.statusCode() / 100 == 2 ? JSON.readTree(response.body()) : null;
      if (answer != null && answer.path("ok").asBoolean() && answer.hasNonNull("ts")) {
        return Optional.of(answer.path("ts").asText());
      }
      LOG.warn(
          "slack chat.postMessage to channel {} answered {}: {}",
          message.channel(),
          response.statusCode(),
          answer == null ? "(not JSON)" : answer.path("error").asText("(no error named)"));
    } catch (JsonProcessingException e) {
      LOG.warn("slack chat.postMessage answered with something that is not JSON");
    } catch (IOException e) {
      LOG.warn(
          "cannot post to slack chat.postMessage at {}: {}", postMessage.getHost(), e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return Optional.empty();
  }
}
