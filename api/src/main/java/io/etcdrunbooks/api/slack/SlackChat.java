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
 * the message's {@code ts}: the thread that the rest of a runbook's progress is posted in; and
 * chat.update, for a message the bot posted. Never follows redirects, and the token is sent to
 * {@code runbooks.slack.api-url} only and never logged.
 */
@Singleton
public final class SlackChat {

  private static final Logger LOG = LoggerFactory.getLogger(SlackChat.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final SlackBotToken token;
  private final URI postMessage;
  private final URI updateMessage;
  private final HttpClient http =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(5))
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();

  SlackChat(SlackConfig config, SlackBotToken token) {
    this.token = token;
    this.postMessage = URI.create(config.apiUrl()).resolve("chat.postMessage");
    this.updateMessage = URI.create(config.apiUrl()).resolve("chat.update");
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
    return call(postMessage, message.channel(), message)
        .filter(answer -> answer.hasNonNull("ts"))
        .map(answer -> answer.path("ts").asText());
  }

  /** Replaces a message this bot posted; whether Slack took it (logged otherwise). */
  public boolean update(SlackUpdate update) {
    return call(updateMessage, update.channel(), update).isPresent();
  }

  private Optional<JsonNode> call(URI method, String channel, Object body) {
    Optional<String> authorization = token.authorization();
    if (authorization.isEmpty()) return Optional.empty();
    String name = method.getPath().substring(method.getPath().lastIndexOf('/') + 1);
    try {
      HttpRequest request =
          HttpRequest.newBuilder(method)
              .timeout(Duration.ofSeconds(10))
              .header("Content-Type", "application/json; charset=utf-8")
              .header("Authorization", authorization.get())
              .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
              .build();
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      JsonNode answer = response.statusCode() / 100 == 2 ? JSON.readTree(response.body()) : null;
      if (answer != null && answer.path("ok").asBoolean()) return Optional.of(answer);
      LOG.warn(
          "slack {} to channel {} answered {}: {}",
          name,
          channel,
          response.statusCode(),
          answer == null ? "(not JSON)" : answer.path("error").asText("(no error named)"));
    } catch (JsonProcessingException e) {
      LOG.warn("slack {} answered with something that is not JSON", name);
    } catch (IOException e) {
      LOG.warn("cannot reach slack {} at {}: {}", name, method.getHost(), e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return Optional.empty();
  }
}
