package io.etcdrunbooks.api.slack;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * A message for Slack, as the answer to a command or posted to its response URL: {@code in_channel}
 * messages are seen by the whole channel, {@code ephemeral} ones only by the user who typed the
 * command.
 */
public record SlackReply(@JsonProperty("response_type") String responseType, String text) {

  public static final String IN_CHANNEL = "in_channel";
  public static final String EPHEMERAL = "ephemeral";

  public static SlackReply inChannel(String text) {
    return new SlackReply(IN_CHANNEL, text);
  }

  public static SlackReply ephemeral(String text) {
    return new SlackReply(EPHEMERAL, text);
  }

  /**
   * Slack's escaping for text we did not write: without it, {@code <!channel>} in a command would
   * notify the channel.
   */
  public static String escape(String text) {
    return text == null ? "" : text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
