package io.etcdrunbooks.activities.backup;

import io.etcdrunbooks.inventory.BackupSpec.ObjectStore;
import io.etcdrunbooks.secrets.SecretFiles;
import io.etcdrunbooks.workflows.common.FailureType;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * The credentials an object store is written with: the [default] profile of
 * backup.objectStore.credentialsFile (AWS shared-credentials format: aws_access_key_id,
 * aws_secret_access_key, optional aws_session_token), a secret file ({@link SecretFiles}); or, with
 * no file named, the AWS SDK's default chain. Messages name the file and the missing field, never
 * what the file holds.
 */
final class ObjectStoreCredentials {

  private static final String PROFILE = "default";

  private ObjectStoreCredentials() {}

  static AwsCredentialsProvider provider(String cluster, ObjectStore store) {
    if (store.credentialsFile() == null || store.credentialsFile().isBlank()) {
      return DefaultCredentialsProvider.builder().build();
    }
    Path file = Path.of(store.credentialsFile());
    Map<String, String> profile;
    try {
      profile = defaultProfile(SecretFiles.readString("the object store's credentials file", file));
    } catch (IOException e) {
      throw FailureType.InvalidRequest.nonRetryable(
          "cluster '"
              + cluster
              + "': backup.objectStore.credentialsFile cannot be used: "
              + (e instanceof SecretFiles.Refused
                  ? e.getMessage()
                  : file + " cannot be read (" + e.getClass().getSimpleName() + ")"));
    }
    String id = profile.get("aws_access_key_id");
    String secret = profile.get("aws_secret_access_key");
    if (id == null || secret == null) {
      throw FailureType.InvalidRequest.nonRetryable(
          "cluster '"
              + cluster
              + "': backup.objectStore.credentialsFile "
              + file
              + " needs aws_access_key_id and aws_secret_access_key in its ["
              + PROFILE
              + "] profile");
    }
    String token = profile.get("aws_session_token");
    return StaticCredentialsProvider.create(
        token == null
            ? AwsBasicCredentials.create(id, secret)
            : AwsSessionCredentials.create(id, secret, token));
  }

  /** The [default] section's settings (or the lines before any section). */
  static Map<String, String> defaultProfile(String text) {
    Map<String, String> settings = new HashMap<>();
    String section = PROFILE;
    for (String raw : text.split("\\R")) {
      String line = raw.strip();
      if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) continue;
      if (line.startsWith("[") && line.endsWith("]")) {
        section = line.substring(1, line.length() - 1).strip();
        continue;
      }
      int eq = line.indexOf('=');
      if (eq > 0 && section.equals(PROFILE)) {
        settings.put(line.substring(0, eq).strip().toLowerCase(), line.substring(eq + 1).strip());
      }
    }
    return settings;
  }
}
