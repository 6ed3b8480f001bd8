package io.etcdrunbooks.api.slack;

import java.util.Optional;

/**
 * The Slack app's signing secret, read from {@code runbooks.slack.signing-secret-file} ({@link
 * SlackSecretFile}: reread when it changes, nothing loaded from a file that breaks the secret file
 * rule, and then every request is refused until it is fixed). The secret never leaves this class
 * but as an HMAC key.
 */
public final class SlackSigningSecret {

  private static final SlackSecretFile.Names NAMES =
      new SlackSecretFile.Names(
          "the Slack signing secret file",
          "the signing secret file",
          "runbooks.slack.signing-secret-file (ETCD_RUNBOOKS_SLACK_SIGNING_SECRET_FILE)",
          "the Slack app's Signing Secret (Basic Information > App Credentials)");

  private final SlackSecretFile file;

  /**
   * @param file the file holding the secret; null or blank: Slack is not configured
   */
  public SlackSigningSecret(String file) {
    this.file = new SlackSecretFile(file, NAMES);
  }

  /** The secret as HMAC key bytes; empty when none is loaded ({@link #unusable()} says why). */
  public Optional<byte[]> key() {
    return file.bytes();
  }

  /**
   * Why no request can be verified, for the log (it names the file); empty when a secret is loaded.
   */
  public Optional<String> unusable() {
    return file.unusable();
  }
}
