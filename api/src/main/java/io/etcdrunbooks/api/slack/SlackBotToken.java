package io.etcdrunbooks.api.slack;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The Slack app's bot token (xoxb-...), read from {@code runbooks.slack.bot-token-file} as the
 * signing secret is read ({@link SlackSecretFile}). With it, a runbook's progress is posted with
 * chat.postMessage, in one thread; without it, to the slash command's response URL. The token
 * leaves this class only for the Authorization header.
 */
public final class SlackBotToken {

  private static final SlackSecretFile.Names NAMES =
      new SlackSecretFile.Names(
          "the Slack bot token file",
          "the bot token file",
          "runbooks.slack.bot-token-file (ETCD_RUNBOOKS_SLACK_BOT_TOKEN_FILE)",
          "the Slack app's Bot User OAuth Token (OAuth & Permissions, xoxb-...)");

  private final SlackSecretFile file;

  /**
   * @param file the file holding the token; null or blank: progress goes to response URLs
   */
  public SlackBotToken(String file) {
    this.file = new SlackSecretFile(file, NAMES);
  }

  /** The value of the Authorization header, or empty when no token is loaded. */
  Optional<String> authorization() {
    return file.bytes().map(token -> "Bearer " + new String(token, StandardCharsets.UTF_8));
  }

  /** Why no token is loaded, for the log; empty when one is. */
  public Optional<String> unusable() {
    return file.unusable();
  }
}
