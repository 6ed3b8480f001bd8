package io.etcdrunbooks.api.slack;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * A message for Slack, as the answer to a command or posted to its response URL: {@code in_channel}
 * messages are seen by the whole channel, {@code ephemeral} ones only by the user who typed the
 * command. {@code text} is always there: it is the fallback where {@code blocks} (Block Kit, such
 * as {@link SlackButtons}) cannot be shown. {@code replaceOriginal} (on a click's response URL):
 * true replaces the message clicked, false leaves it and adds this one; null: Slack's default.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record SlackReply(
    @JsonProperty("response_type") String responseType,
    String text,
    List<SlackButtons.Block> blocks,
    @JsonProperty("replace_original") Boolean replaceOriginal) {

  public static final String IN_CHANNEL = "in_channel";
  public static final String EPHEMERAL = "ephemeral";

  public static SlackReply inChannel(String text) {
    return new SlackReply(IN_CHANNEL, text, null, null);
  }

  public static SlackReply ephemeral(String text) {
    return new SlackReply(EPHEMERAL, text, null, null);
  }

  public SlackReply withBlocks(List<SlackButtons.Block> blocks) {
    return new SlackReply(responseType, text, blocks, replaceOriginal);
  }

  public SlackReply replacingOriginal(boolean replace) {
    return new SlackReply(responseType, text, blocks, replace);
  }

  /**
   * Slack's escaping for text we did not write: without it, {@code <!channel>} in a command would
   * notify the channel.
   */
  public static String escape(String text) {
    return text == null ? "" : text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
