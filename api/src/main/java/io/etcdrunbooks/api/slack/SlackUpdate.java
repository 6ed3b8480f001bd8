package io.etcdrunbooks.api.slack;

import java.util.List;

/**
 * A new text for a message the bot posted, for Slack's chat.update: its blocks (buttons) are
 * replaced by none.
 */
public record SlackUpdate(String channel, String ts, String text, List<SlackButtons.Block> blocks) {

  public static SlackUpdate textOnly(String channel, String ts, String text) {
    return new SlackUpdate(channel, ts, text, List.of());
  }
}
