package io.etcdrunbooks.api.slack;

import io.etcdrunbooks.secrets.SecretFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Optional;

/**
 * One secret of the Slack app, read from its file and again whenever the file changes, so it can be
 * rotated without a restart. A file that is missing, empty or breaks the secret file rule ({@link
 * SecretFiles}: mode 0600 or 0400, owned by this process's user or root) loads nothing, and {@link
 * #unusable()} says why without the secret.
 */
final class SlackSecretFile {

  /** How the secret is named in messages. */
  record Names(String file, String shortFile, String setting, String whatToPut) {}

  private final Path file;
  private final Names names;
  private FileTime loadedAt;
  private byte[] secret;
  private String problem;

  /**
   * @param file the file holding the secret; null or blank: not configured
   */
  SlackSecretFile(String file, Names names) {
    this.file = file == null || file.isBlank() ? null : Path.of(file);
    this.names = names;
  }

  synchronized Optional<byte[]> bytes() {
    reloadIfChanged();
    return Optional.ofNullable(secret).map(byte[]::clone);
  }

  synchronized Optional<String> unusable() {
    reloadIfChanged();
    if (file == null) return Optional.of(names.setting() + " is not set");
    return secret == null ? Optional.of(problem) : Optional.empty();
  }

  // Permissions are checked on every call, not only when the file changes: a chmod does not change
  // the mtime.
  private void reloadIfChanged() {
    if (file == null) return;
    try {
      SecretFiles.check(names.file(), file);
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
          "cannot read "
              + names.shortFile()
              + " "
              + file
              + " ("
              + e.getClass().getSimpleName()
              + ")";
    }
  }

  private byte[] read(Path file) throws IOException {
    String value = Files.readString(file, StandardCharsets.UTF_8).strip();
    if (value.isEmpty()) {
      throw new IllegalArgumentException(
          names.shortFile() + " " + file + " is empty: put " + names.whatToPut() + " in it");
    }
    return value.getBytes(StandardCharsets.UTF_8);
  }
}
