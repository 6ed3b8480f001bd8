package io.etcdrunbooks.runtime.codec;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.temporal.api.common.v1.Payload;
import io.temporal.payload.codec.PayloadCodec;
import io.temporal.payload.codec.PayloadCodecException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;

/**
 * Encrypts whole payloads (data and metadata, as the serialized proto) with AES-256-GCM under the
 * current key of {@link CodecKeys}. An encrypted payload's data is the 12-byte random nonce
 * followed by the ciphertext and the 16-byte tag; its metadata says {@code encoding:
 * binary/encrypted} and {@code encryption-key-id: <id>}, and the key id is bound as associated
 * data, so a payload relabelled with another key id fails to decrypt. Decoding leaves payloads that
 * are not {@code binary/encrypted} alone: a workflow started with plain JSON (from the Temporal Web
 * UI, say) still runs.
 */
public final class AesGcmPayloadCodec implements PayloadCodec {

  public static final String ENCODING = "binary/encrypted";
  public static final String METADATA_ENCODING = "encoding";
  public static final String METADATA_KEY_ID = "encryption-key-id";
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;
  private static final String CIPHER = "AES/GCM/NoPadding";
  private static final SecureRandom RANDOM = new SecureRandom();

  private final CodecKeys keys;

  public AesGcmPayloadCodec(CodecKeys keys) {
    this.keys = keys;
  }

  public String currentKeyId() {
    return keys.currentKeyId();
  }

  @Override
  public List<Payload> encode(List<Payload> payloads) {
    return payloads.stream().map(this::encrypt).toList();
  }

  @Override
  public List<Payload> decode(List<Payload> payloads) {
    return payloads.stream().map(this::decrypt).toList();
  }

  private Payload encrypt(Payload payload) {
    String keyId = keys.currentKeyId();
    byte[] nonce = new byte[NONCE_BYTES];
    RANDOM.nextBytes(nonce);
    try {
      Cipher cipher = cipher(Cipher.ENCRYPT_MODE, keys.currentKey(), nonce, keyId);
      byte[] sealed = cipher.doFinal(payload.toByteArray());
      return Payload.newBuilder()
          .putMetadata(METADATA_ENCODING, ByteString.copyFromUtf8(ENCODING))
          .putMetadata(METADATA_KEY_ID, ByteString.copyFromUtf8(keyId))
          .setData(
              ByteString.copyFrom(
                  ByteBuffer.allocate(nonce.length + sealed.length).put(nonce).put(sealed).array()))
          .build();
    } catch (GeneralSecurityException e) {
      throw new PayloadCodecException(
          "cannot encrypt a payload with key '"
              + keyId
              + "' of "
              + keys.file()
              + ": "
              + e.getClass().getSimpleName());
    }
  }

  private Payload decrypt(Payload payload) {
    ByteString encoding = payload.getMetadataOrDefault(METADATA_ENCODING, ByteString.EMPTY);
    if (!encoding.toStringUtf8().equals(ENCODING)) return payload;
    if (!payload.containsMetadata(METADATA_KEY_ID)) {
      throw new PayloadCodecException(
          "an encrypted payload has no '"
              + METADATA_KEY_ID
              + "' metadata, so no key can be chosen to decrypt it");
    }
    String keyId = payload.getMetadataOrThrow(METADATA_KEY_ID).toStringUtf8();
    SecretKey key =
        keys.key(keyId)
            .orElseThrow(
                () ->
                    new PayloadCodecException(
                        "a payload is encrypted with key id '"
                            + keyId
                            + "', which is not in "
                            + keys.file()
                            + " (it has "
                            + keys.keys().keySet().stream().sorted().toList()
                            + "); add that key back to read it"));
    byte[] data = payload.getData().toByteArray();
    if (data.length < NONCE_BYTES + TAG_BITS / 8) {
      throw new PayloadCodecException(
          "a payload encrypted with key id '"
              + keyId
              + "' is "
              + data.length
              + " bytes, too short to hold a nonce and a tag");
    }
    try {
      Cipher cipher = cipher(Cipher.DECRYPT_MODE, key, Arrays.copyOf(data, NONCE_BYTES), keyId);
      return Payload.parseFrom(cipher.doFinal(data, NONCE_BYTES, data.length - NONCE_BYTES));
    } catch (AEADBadTagException e) {
      throw new PayloadCodecException(
          "cannot decrypt a payload encrypted with key id '"
              + keyId
              + "': its authentication"
              + " tag does not match (the payload was changed, or key '"
              + keyId
              + "' in "
              + keys.file()
              + " is not the key it was encrypted with)");
    } catch (GeneralSecurityException | InvalidProtocolBufferException e) {
      throw new PayloadCodecException(
          "cannot decrypt a payload encrypted with key id '"
              + keyId
              + "': "
              + e.getClass().getSimpleName());
    }
  }

  private static Cipher cipher(int mode, SecretKey key, byte[] nonce, String keyId)
      throws GeneralSecurityException {
    Cipher cipher = Cipher.getInstance(CIPHER);
    cipher.init(mode, key, new GCMParameterSpec(TAG_BITS, nonce));
    cipher.updateAAD(associatedData(keyId));
    return cipher;
  }

  private static byte[] associatedData(String keyId) {
    return (ENCODING + ";" + METADATA_KEY_ID + "=" + keyId).getBytes(StandardCharsets.UTF_8);
  }
}
