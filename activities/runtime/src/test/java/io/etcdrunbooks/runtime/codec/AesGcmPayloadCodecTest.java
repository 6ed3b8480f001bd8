package io.etcdrunbooks.runtime.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.etcdrunbooks.secrets.SecretFiles;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.CodecDataConverter;
import io.temporal.common.converter.DataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.payload.codec.PayloadCodecException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The AES-256-GCM payload codec and its keys file. */
class AesGcmPayloadCodecTest {

  private static final DataConverter JSON = DefaultDataConverter.newDefaultInstance();
  private static final String K1 = randomKey();
  private static final String K2 = randomKey();
  private static final String SECRET = "prod-east-1 m2 https://10.1.2.3:2379 3.5.30";

  @TempDir Path dir;

  @Test
  void aPayloadRoundTripsWithItsMetadataAndIsCiphertextInBetween() throws Exception {
    AesGcmPayloadCodec codec = codec(keysFile("k1", Map.of("k1", K1)));
    Payload plain = JSON.toPayload(Map.of("cluster", SECRET)).orElseThrow();

    Payload encrypted = codec.encode(List.of(plain)).get(0);

    assertThat(encrypted.getMetadataOrThrow("encoding").toStringUtf8())
        .isEqualTo("binary/encrypted");
    assertThat(encrypted.getMetadataOrThrow("encryption-key-id").toStringUtf8()).isEqualTo("k1");
    assertThat(encrypted.getMetadataCount()).isEqualTo(2);
    assertThat(text(encrypted)).doesNotContain("prod-east-1", "10.1.2.3", "json/plain");
    assertThat(codec.encode(List.of(plain)).get(0).getData())
        .as("a fresh nonce per payload")
        .isNotEqualTo(encrypted.getData());
    assertThat(codec.decode(List.of(encrypted))).containsExactly(plain);
  }

  @Test
  void theSdkConverterWithTheCodecRoundTripsValues() throws Exception {
    DataConverter converter =
        new CodecDataConverter(JSON, List.of(codec(keysFile("k1", Map.of("k1", K1)))), true);
    Payload payload = converter.toPayload(List.of(SECRET)).orElseThrow();
    assertThat(text(payload)).doesNotContain("prod-east-1");
    List<?> decoded = converter.fromPayload(payload, List.class, List.class);
    assertThat(decoded).isEqualTo(List.of(SECRET));
  }

  @Test
  void payloadsThatAreNotEncryptedPassThroughDecode() throws Exception {
    AesGcmPayloadCodec codec = codec(keysFile("k1", Map.of("k1", K1)));
    Payload plain = JSON.toPayload(Map.of("targetVersion", "3.5.30")).orElseThrow();
    assertThat(codec.decode(List.of(plain))).containsExactly(plain);
  }

  @Test
  void aChangedCiphertextIsRefusedNamingTheKeyId() throws Exception {
    AesGcmPayloadCodec codec = codec(keysFile("k1", Map.of("k1", K1)));
    Payload encrypted = codec.encode(List.of(JSON.toPayload(SECRET).orElseThrow())).get(0);
    byte[] data = encrypted.getData().toByteArray();
    data[20] ^= 1;
    Payload tampered = encrypted.toBuilder().setData(ByteString.copyFrom(data)).build();

    assertThatThrownBy(() -> codec.decode(List.of(tampered)))
        .isInstanceOf(PayloadCodecException.class)
        .hasMessageContaining("key id 'k1'")
        .hasMessageContaining("authentication tag does not match")
        .message()
        .doesNotContain(K1);
  }

  @Test
  void theKeyIdIsBoundToTheCiphertext() throws Exception {
    // same key bytes under two ids: only the associated data tells them apart
    AesGcmPayloadCodec codec = codec(keysFile("k1", Map.of("k1", K1, "k1-copy", K1)));
    Payload encrypted = codec.encode(List.of(JSON.toPayload(SECRET).orElseThrow())).get(0);
    Payload relabelled =
        encrypted.toBuilder()
            .putMetadata("encryption-key-id", ByteString.copyFromUtf8("k1-copy"))
            .build();

    assertThatThrownBy(() -> codec.decode(List.of(relabelled)))
        .hasMessageContaining("key id 'k1-copy'");
  }

  @Test
  void rotationEncryptsWithTheNewKeyAndStillReadsTheOld() throws Exception {
    Path file = keysFile("k1", Map.of("k1", K1));
    Payload plain = JSON.toPayload(SECRET).orElseThrow();
    Payload underK1 = codec(file).encode(List.of(plain)).get(0);

    writeKeysFile(file, "k2", Map.of("k1", K1, "k2", K2));
    AesGcmPayloadCodec rotated = codec(file);
    Payload underK2 = rotated.encode(List.of(plain)).get(0);

    assertThat(rotated.currentKeyId()).isEqualTo("k2");
    assertThat(underK2.getMetadataOrThrow("encryption-key-id").toStringUtf8()).isEqualTo("k2");
    assertThat(rotated.decode(List.of(underK1, underK2))).containsExactly(plain, plain);
  }

  @Test
  void anUnknownKeyIdIsNamedAndNoKeyIsShown() throws Exception {
    Payload underK1 =
        codec(keysFile("k1", Map.of("k1", K1)))
            .encode(List.of(JSON.toPayload(SECRET).orElseThrow()))
            .get(0);
    AesGcmPayloadCodec withoutK1 = codec(keysFile("k2", Map.of("k2", K2)));

    assertThatThrownBy(() -> withoutK1.decode(List.of(underK1)))
        .isInstanceOf(PayloadCodecException.class)
        .hasMessageContaining("key id 'k1'")
        .hasMessageContaining("[k2]")
        .hasMessageContaining("add that key back")
        .message()
        .doesNotContain(K1, K2);
  }

  @Test
  void aKeysFileReadableByOthersOrTheGroupIsRefused() throws Exception {
    Path file = keysFile("k1", Map.of("k1", K1));
    for (String mode : List.of("rw-r--r--", "rw-r-----")) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
      assertThatThrownBy(() -> CodecKeys.load(file))
          .isInstanceOf(SecretFiles.Refused.class)
          .hasMessageContaining(file.toString())
          .hasMessageContaining("chmod 600")
          .message()
          .doesNotContain(K1);
    }
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--------"));
    assertThat(CodecKeys.load(file).currentKeyId()).isEqualTo("k1");
  }

  @Test
  void aKeyOfTheWrongLengthIsRefusedNamingItsId() throws Exception {
    String short16 = Base64.getEncoder().encodeToString(new byte[16]);
    Path file = keysFile("k1", Map.of("k1", K1, "k-short", short16));
    assertThatThrownBy(() -> CodecKeys.load(file))
        .hasMessageContaining(file.toString())
        .hasMessageContaining("key 'k-short' is 16 bytes; AES-256 needs 32")
        .message()
        .doesNotContain(short16, K1);
  }

  @Test
  void aKeyThatIsNotBase64IsRefusedWithoutEchoingIt() throws Exception {
    Path file = keysFile("k1", Map.of("k1", "not-base64!-secretish"));
    assertThatThrownBy(() -> CodecKeys.load(file))
        .hasMessageContaining("key 'k1' is not base64")
        .message()
        .doesNotContain("secretish");
  }

  @Test
  void aMissingCurrentKeyIsRefusedNamingIt() throws Exception {
    Path file = keysFile("k9", Map.of("k1", K1));
    assertThatThrownBy(() -> CodecKeys.load(file))
        .hasMessageContaining(file.toString())
        .hasMessageContaining("current key 'k9' is not under keys (it has [k1])")
        .message()
        .doesNotContain(K1);

    Files.writeString(file, "keys:\n  k1: " + K1 + "\n");
    assertThatThrownBy(() -> CodecKeys.load(file))
        .hasMessageContaining("'current: <key id>' is missing");
  }

  @Test
  void aKeysFileThatIsNotYamlOfKeysIsRefusedWithoutQuotingIt() throws Exception {
    Path file = keysFile("k1", Map.of("k1", K1));
    Files.writeString(file, "current: k1\nkeys:\n  k1: " + K1 + "\nsecret-typo: " + K2 + "\n");
    assertThatThrownBy(() -> CodecKeys.load(file))
        .hasMessageContaining(file + " is not a keys file")
        .message()
        .doesNotContain(K1, K2);
  }

  private static AesGcmPayloadCodec codec(Path keysFile) throws IOException {
    return new AesGcmPayloadCodec(CodecKeys.load(keysFile));
  }

  private Path keysFile(String current, Map<String, String> keys) throws IOException {
    Path file = dir.resolve("codec-keys.yaml");
    Files.deleteIfExists(file);
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    return writeKeysFile(file, current, keys);
  }

  private static Path writeKeysFile(Path file, String current, Map<String, String> keys)
      throws IOException {
    StringBuilder yaml = new StringBuilder("current: ").append(current).append("\nkeys:\n");
    new LinkedHashMap<>(keys)
        .forEach(
            (id, key) -> yaml.append("  ").append(id).append(": \"").append(key).append("\"\n"));
    Files.writeString(file, yaml);
    return file;
  }

  private static String text(Payload payload) {
    return payload.toByteString().toString(StandardCharsets.ISO_8859_1);
  }

  private static String randomKey() {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    return Base64.getEncoder().encodeToString(key);
  }
}
