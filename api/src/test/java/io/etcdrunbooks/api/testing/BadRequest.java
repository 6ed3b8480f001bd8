package io.etcdrunbooks.api.testing;

import java.util.HashMap;
import java.util.Map;

/**
 * One bad request: what is sent and what must come back ({@code status}, and {@code words} the
 * answer's message must contain). {@link BadRequestCheck} sends it and checks the answer.
 */
public record BadRequest(
    String name,
    String method,
    String path,
    String contentType,
    String body,
    String authorization,
    Map<String, String> headers,
    int status,
    String... words) {

  public BadRequest(
      String name,
      String method,
      String path,
      String contentType,
      String body,
      String authorization,
      int status,
      String... words) {
    this(name, method, path, contentType, body, authorization, Map.of(), status, words);
  }

  /** A slash command to /slack/commands with the given Slack signature headers (null: left out). */
  public static BadRequest slack(
      String name,
      String contentType,
      String body,
      String timestamp,
      String signature,
      int status,
      String... words) {
    Map<String, String> headers = new HashMap<>();
    if (timestamp != null) headers.put("X-Slack-Request-Timestamp", timestamp);
    if (signature != null) headers.put("X-Slack-Signature", signature);
    return new BadRequest(
        name, "POST", "/slack/commands", contentType, body, null, headers, status, words);
  }

  /** The same to /slack/interactions, where Slack sends button clicks. */
  public static BadRequest slackClick(
      String name,
      String contentType,
      String body,
      String timestamp,
      String signature,
      int status,
      String... words) {
    BadRequest command = slack(name, contentType, body, timestamp, signature, status, words);
    return new BadRequest(
        name,
        "POST",
        "/slack/interactions",
        contentType,
        body,
        null,
        command.headers(),
        status,
        words);
  }
}
