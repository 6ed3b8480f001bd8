package io.etcdrunbooks.api.slack;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The fields of a slash command, parsed here from the raw body the signature was checked over
 * (Micronaut's own form binding would consume the body before it could be verified).
 *
 * @param userId Slack's user_id, the identity that is mapped to a role
 * @param userName Slack's user_name, only for messages and the audit log
 * @param command the slash command as configured in the Slack app, such as /etcd
 * @param text what follows the command, such as "upgrade prod-1 3.5.30"
 * @param responseUrl where later messages about this command go (empty when absent)
 * @param channelId the channel the command was typed in, where progress is posted with the bot
 *     token (empty when absent)
 */
public record SlackForm(
    String userId,
    String userName,
    String command,
    String text,
    String responseUrl,
    String channelId) {

  /**
   * Parses an application/x-www-form-urlencoded body (UTF-8); the first value of a repeated field
   * counts.
   *
   * @throws IllegalArgumentException when it is not form encoding or has no user_id
   */
  public static SlackForm parse(byte[] body) {
    Map<String, String> fields = fields(new String(body, StandardCharsets.UTF_8));
    String userId = fields.getOrDefault("user_id", "");
    if (userId.isBlank()) {
      throw new IllegalArgumentException(
          "the form has no user_id: this endpoint takes Slack slash commands");
    }
    String command = fields.getOrDefault("command", "");
    return new SlackForm(
        userId.strip(),
        fields.getOrDefault("user_name", ""),
        command.matches("/[A-Za-z0-9_-]{1,32}") ? command : "/etcd",
        fields.getOrDefault("text", ""),
        fields.getOrDefault("response_url", ""),
        channelId(fields.getOrDefault("channel_id", "")));
  }

  /** Slack channel ids are letters and digits (C..., G..., D...); anything else is left out. */
  private static String channelId(String value) {
    return value.matches("[A-Za-z0-9]{2,32}") ? value : "";
  }

  static Map<String, String> fields(String body) {
    Map<String, String> fields = new LinkedHashMap<>();
    if (body.isEmpty()) return fields;
    for (String pair : body.split("&")) {
      if (pair.isEmpty()) continue;
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq));
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
      fields.putIfAbsent(name, value);
    }
    return fields;
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      // URLDecoder's message quotes the field, which may be Slack's verification token: it stays
      // out of answers and logs
      throw new IllegalArgumentException(
          "the body is not application/x-www-form-urlencoded: a field has a malformed %-escape");
    }
  }
}
