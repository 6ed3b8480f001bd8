package io.etcdrunbooks.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.api.auth.ApiTokens;
import io.etcdrunbooks.api.slack.SlackSigningSecret;
import io.etcdrunbooks.runtime.codec.CodecKeys;
import io.etcdrunbooks.secrets.SecretFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The API's secret files (tokens, Slack signing secret, codec keys) all follow one rule: group- or
 * world-readable is refused with a message naming the file, its mode and {@code chmod 600}; 0600 is
 * read.
 */
class SecretFileRuleTest {

  private static final String TOKEN_HASH =
      "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
  private static final String TOKENS =
      "tokens:\n  - name: sre\n    sha256: " + TOKEN_HASH + "\n    role: admin\n";
  private static final String SLACK_SECRET = "8f742231b10e8888abcd99yyyzzz85a5";
  private static final String CODEC_KEY = Base64.getEncoder().encodeToString(new byte[32]);

  @TempDir Path dir;

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "rw-r-----|0640|its group may read it",
        "rw-r--r--|0644|its group may read it and others may read it",
        "rw----r--|0604|others may read it"
      })
  void theApiTokensFile(String mode, String octal, String open) throws Exception {
    Path file = secretFile("api-tokens.yaml", TOKENS, mode);
    ApiTokens tokens = new ApiTokens(file.toString());

    assertThat(tokens.authenticate("test")).isEmpty();
    assertThat(tokens.unusable())
        .get()
        .asString()
        .contains(refusal("the API tokens file", file, octal, open));

    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    assertThat(tokens.unusable()).as("read again after the chmod alone").isEmpty();
    assertThat(tokens.authenticate("test")).get().extracting(c -> c.name()).isEqualTo("sre");
  }

  @Test
  void tokensAlreadyLoadedAreDroppedWhenTheFileIsOpenedToOthers() throws Exception {
    Path file = secretFile("api-tokens.yaml", TOKENS, "rw-------");
    ApiTokens tokens = new ApiTokens(file.toString());
    assertThat(tokens.authenticate("test")).isPresent();

    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
    assertThat(tokens.authenticate("test")).isEmpty();
    assertThat(tokens.unusable())
        .get()
        .asString()
        .contains(refusal("the API tokens file", file, "0640", "its group may read it"));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "rw-r-----|0640|its group may read it",
        "rw-r--r--|0644|its group may read it and others may read it",
        "rw----r--|0604|others may read it"
      })
  void theSlackSigningSecretFile(String mode, String octal, String open) throws Exception {
    Path file = secretFile("slack-signing-secret", SLACK_SECRET, mode);
    SlackSigningSecret secret = new SlackSigningSecret(file.toString());

    assertThat(secret.key()).isEmpty();
    assertThat(secret.unusable())
        .get()
        .asString()
        .isEqualTo(refusal("the Slack signing secret file", file, octal, open));

    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    assertThat(secret.key()).get().isEqualTo(SLACK_SECRET.getBytes());
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "rw-r-----|0640|its group may read it",
        "rw-r--r--|0644|its group may read it and others may read it",
        "rw----r--|0604|others may read it"
      })
  void theCodecKeysFile(String mode, String octal, String open) throws Exception {
    Path file =
        secretFile("codec-keys.yaml", "current: k1\nkeys:\n  k1: " + CODEC_KEY + "\n", mode);

    assertThatThrownBy(() -> CodecKeys.load(file))
        .isInstanceOf(SecretFiles.Refused.class)
        .hasMessage(refusal("the codec keys file", file, octal, open));

    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    assertThat(CodecKeys.load(file).currentKeyId()).isEqualTo("k1");
  }

  private static String refusal(String what, Path file, String octal, String open) {
    return what
        + " "
        + file
        + " has mode "
        + octal
        + ": "
        + open
        + "; a secret file must be for its owner only (0600 or 0400): chmod 600 "
        + file;
  }

  private Path secretFile(String name, String content, String mode) throws Exception {
    Path file =
        Files.createFile(
            dir.resolve(name),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, content);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
    return file;
  }
}
