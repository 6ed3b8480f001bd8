package io.etcdrunbooks.api.slack;

import io.etcdrunbooks.secrets.SecretFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Optional;

/**
 * The Slack app's signing secret, read from {@code runbooks.slack.signing-secret-file} and again
 * whenever the file changes, so it can be rotated without a restart. A file that is missing, empty
 * or breaks the secret file rule ({@link SecretFiles}: mode 0600 or 0400, owned by this process's
 * user or root) loads no secret at all, and every request is refused until it is fixed. The secret
 * never leaves this class but as an HMAC key.
 */
public final class SlackSigningSecret {

  private final Path file;
  private FileTime loadedAt;
  private byte[] secret;
  private String problem;

  /**
   * @param file the file holding the secret; null or blank: Slack is not configured
   */
  public SlackSigningSecret(String file) {
    this.file = file == null || file.isBlank() ? null : Path.of(file);
  }

  /** The secret as HMAC key bytes; empty when none is loaded ({@link #unusable()} says why). */
  public synchronized Optional<byte[]> key() {
    reloadIfChanged();
    return Optional.ofNullable(secret).map(byte[]::clone);
  }

  /**
   * Why no request can be verified, for the log (it names the file); empty when a secret is loaded.
   */
  public synchronized Optional<String> unusable() {
    reloadIfChanged();
    if (file == null) {
      return Optional.of(
          "runbooks.slack.signing-secret-file (ETCD_RUNBOOKS_SLACK_SIGNING_SECRET_FILE) is not set");
    }
    return secret == null ? Optional.of(problem) : Optional.empty();
  }

  // Permissions are checked on every call, not only when the file changes: a chmod does not change
  // the mtime.
  private void reloadIfChanged() {
    if (file == null) return;
    try {
      SecretFiles.check("the Slack signing secret file", file);
      FileTime modified = Files.getLastModifiedTime(file);
      if (secret != null && modified.equals(loadedAt)) return;
      secret = read(file);
      loadedAt = modified;
      problem = null;
    } catch (SecretFiles.Refused | IllegalArgumentException e) {
      secret = null;
      problem = e.getMessage();
    } catch (IOException e) {
      secret = null;
      problem =
          "cannot read the signing secret file " + file + " (" + e.getClass().getSimpleName() + ")";
    }
  }

  private static byte[] read(Path file) throws IOException {
    String value = Files.readString(file, StandardCharsets.UTF_8).strip();
    if (value.isEmpty()) {
      throw new IllegalArgumentException(
          "the signing secret file "
              + file
              + " is empty: put the Slack app's Signing Secret"
              + " (Basic Information > App Credentials) in it");
    }
    return value.getBytes(StandardCharsets.UTF_8);
  }
}
