package io.etcdrunbooks.api.slack;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Posts messages to the response URL of a slash command (never follows redirects: the URL was
 * checked, its target not).
 */
@Singleton
public final class SlackPoster {

  private static final Logger LOG = LoggerFactory.getLogger(SlackPoster.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(5))
          .followRedirects(HttpClient.Redirect.NEVER)
          .build();

  /**
   * Posts one message; true when Slack took it. Failures are logged (without the URL, which is a
   * credential for 30 minutes).
   */
  public boolean post(URI responseUrl, SlackReply reply) {
    try {
      HttpRequest request =
          HttpRequest.newBuilder(responseUrl)
              .timeout(Duration.ofSeconds(10))
              .header("Content-Type", "application/json; charset=utf-8")
              .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(reply)))
              .build();
      HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() / 100 == 2) return true;
      String body = response.body() == null ? "" : response.body();
      LOG.warn(
          "slack response URL answered {}: {}",
          response.statusCode(),
          body.substring(0, Math.min(body.length(), 200)));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    } catch (IOException e) {
      LOG.warn(
          "cannot post to the slack response URL of host {}: {}",
          responseUrl.getHost(),
          e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return false;
  }
}
