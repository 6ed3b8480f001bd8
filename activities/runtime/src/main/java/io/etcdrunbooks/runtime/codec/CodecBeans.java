package io.etcdrunbooks.runtime.codec;

import io.etcdrunbooks.secrets.SecretFiles;
import io.micronaut.context.annotation.Context;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Requires;
import io.micronaut.context.annotation.Value;
import java.io.IOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The payload codec, when {@code runbooks.codec.keys-file} is set. It is made when the application
 * context starts ({@link Context}), so a keys file that is set but does not load stops every
 * process at start, whatever its roles: running on in plaintext would be the wrong way to fail, and
 * so would an API that starts and then fails every call.
 */
@Factory
public class CodecBeans {

  private static final Logger LOG = LoggerFactory.getLogger(CodecBeans.class);

  @Context
  @Requires(property = "runbooks.codec.keys-file", pattern = ".*\\S.*")
  public AesGcmPayloadCodec payloadCodec(@Value("${runbooks.codec.keys-file}") String keysFile) {
    Path file = Path.of(keysFile.strip());
    try {
      CodecKeys keys = CodecKeys.load(file);
      LOG.info(
          "Temporal payloads are encrypted (AES-256-GCM) with key '{}' of {}; payloads of keys {} can be read",
          keys.currentKeyId(),
          file,
          keys.keys().keySet().stream().sorted().toList());
      return new AesGcmPayloadCodec(keys);
    } catch (SecretFiles.Refused | IllegalArgumentException e) {
      throw new IllegalStateException("runbooks.codec.keys-file: " + e.getMessage());
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot read runbooks.codec.keys-file "
              + file
              + " ("
              + e.getClass().getSimpleName()
              + ")");
    }
  }
}
