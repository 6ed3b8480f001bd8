package io.etcdrunbooks.runtime.codec;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.etcdrunbooks.secrets.SecretFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import javax.crypto.SecretKey;
import javax.crypto.spec.SecretKeySpec;

/**
 * The AES-256 keys payloads are encrypted with, by key id, and the id new payloads are encrypted
 * with. Read from a YAML file ({@code runbooks.codec.keys-file}):
 *
 * <pre>
 * current: k2
 * keys:
 *   k1: &lt;base64 of 32 random bytes&gt;
 *   k2: &lt;base64 of 32 random bytes&gt;
 * </pre>
 *
 * Every message names the file and the key id, never key bytes.
 *
 * @param file where the keys came from, for messages
 */
public record CodecKeys(Path file, String currentKeyId, Map<String, SecretKey> keys) {

  static final int KEY_BYTES = 32;
  private static final String KEY_ID = "[A-Za-z0-9][A-Za-z0-9._-]{0,63}";
  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory())
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

  private record KeysFile(String current, Map<String, String> keys) {}

  public CodecKeys {
    keys = Map.copyOf(keys);
    if (!keys.containsKey(currentKeyId)) {
      throw new IllegalArgumentException(
          file
              + ": current key '"
              + currentKeyId
              + "' is not under keys (it has "
              + keys.keySet().stream().sorted().toList()
              + ")");
    }
  }

  /** The key with that id, or empty. */
  public Optional<SecretKey> key(String keyId) {
    return Optional.ofNullable(keys.get(keyId));
  }

  public SecretKey currentKey() {
    return keys.get(currentKeyId);
  }

  /**
   * Reads and checks the keys file: a secret file ({@link SecretFiles}: mode 0600 or 0400, owned by
   * this process's user or root), a current key, every key 32 bytes of base64.
   *
   * @throws SecretFiles.Refused when the file breaks the secret file rule
   */
  public static CodecKeys load(Path file) throws IOException {
    String text = SecretFiles.readString("the codec keys file", file);
    KeysFile parsed;
    try {
      parsed = YAML.readValue(text, KeysFile.class);
    } catch (JsonProcessingException e) {
      // the parser's own message can quote the file, and so a key: only the line is kept
      int line = e.getLocation() == null ? 0 : e.getLocation().getLineNr();
      throw new IllegalArgumentException(
          file
              + " is not a keys file"
              + (line > 0 ? " (line " + line + ")" : "")
              + "; expected 'current: <key id>' and 'keys: {<key id>: <base64 of 32 bytes>}'");
    }
    if (parsed == null || parsed.current() == null || parsed.current().isBlank()) {
      throw new IllegalArgumentException(
          file
              + ": 'current: <key id>' is missing; it names the key new payloads are encrypted with");
    }
    if (parsed.keys() == null || parsed.keys().isEmpty()) {
      throw new IllegalArgumentException(
          file
              + ": 'keys' is missing or empty; add '<key id>: <base64 of 32 bytes>'"
              + " (make one with: head -c32 /dev/urandom | base64)");
    }
    Map<String, SecretKey> keys = new LinkedHashMap<>();
    parsed.keys().forEach((id, base64) -> keys.put(id, aesKey(file, id, base64)));
    return new CodecKeys(file, parsed.current().strip(), keys);
  }

  private static SecretKey aesKey(Path file, String id, String base64) {
    if (id == null || !id.matches(KEY_ID)) {
      throw new IllegalArgumentException(
          file + ": key id '" + id + "' must be 1-64 letters, digits, '.', '_' or '-'");
    }
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(base64 == null ? "" : base64.strip());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          file
              + ": key '"
              + id
              + "' is not base64 (make one with: head -c32 /dev/urandom | base64)");
    }
    try {
      if (bytes.length != KEY_BYTES) {
        throw new IllegalArgumentException(
            file
                + ": key '"
                + id
                + "' is "
                + bytes.length
                + " bytes; AES-256 needs "
                + KEY_BYTES
                + " (make one with: head -c32 /dev/urandom | base64)");
      }
      return new SecretKeySpec(bytes, "AES");
    } finally {
      Arrays.fill(bytes, (byte) 0);
    }
  }

  @Override
  public String toString() {
    return "CodecKeys["
        + file
        + ", current "
        + currentKeyId
        + ", ids "
        + keys.keySet().stream().sorted().toList()
        + "]";
  }
}
