package io.etcdrunbooks.runtime.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micronaut.context.ApplicationContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The codec bean exists only with a keys file, and a keys file that does not load stops the
 * process.
 */
class CodecBeansTest {

  private static final String KEY = Base64.getEncoder().encodeToString(new byte[32]);

  @TempDir Path dir;

  @Test
  void withoutAKeysFileThereIsNoCodec() {
    try (ApplicationContext context = ApplicationContext.run()) {
      assertThat(context.findBean(AesGcmPayloadCodec.class)).isEmpty();
    }
  }

  @Test
  void aKeysFileGivesTheCodecOfItsCurrentKey() throws Exception {
    Path file = keysFile("rw-------");
    try (ApplicationContext context =
        ApplicationContext.run(Map.of("runbooks.codec.keys-file", file.toString()))) {
      assertThat(context.getBean(AesGcmPayloadCodec.class).currentKeyId()).isEqualTo("k1");
    }
  }

  @Test
  void aKeysFileThatDoesNotLoadStopsTheContextAtStartNamingTheFile() throws Exception {
    Path file = keysFile("rw-rw-r--");
    assertThatThrownBy(
            () ->
                ApplicationContext.run(Map.of("runbooks.codec.keys-file", file.toString())).close())
        .hasStackTraceContaining(
            "runbooks.codec.keys-file: the codec keys file " + file + " has mode 0664")
        .hasStackTraceContaining("chmod 600 " + file)
        .message()
        .doesNotContain(KEY);
  }

  private Path keysFile(String mode) throws Exception {
    Path file = dir.resolve("keys.yaml");
    Files.writeString(file, "current: k1\nkeys:\n  k1: " + KEY + "\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
    return file;
  }
}
