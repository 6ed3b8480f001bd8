package io.etcdrunbooks.api.slack;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Slack's request signature: {@code X-Slack-Signature: v0=<hex HMAC-SHA256 of "v0:<timestamp>:<raw
 * body>">} keyed with the app's signing secret, and {@code X-Slack-Request-Timestamp} within five
 * minutes of now (either way), so a captured request cannot be replayed later. Refusals say which
 * check failed and never carry the expected signature.
 */
public final class SlackSignature {

  public static final String TIMESTAMP_HEADER = "X-Slack-Request-Timestamp";
  public static final String SIGNATURE_HEADER = "X-Slack-Signature";
  public static final Duration MAX_AGE = Duration.ofMinutes(5);

  /** The check a request failed. */
  public enum Check {
    MISSING_HEADER,
    BAD_TIMESTAMP,
    STALE_TIMESTAMP,
    MALFORMED_SIGNATURE,
    SIGNATURE_MISMATCH
  }

  /** Why a request is refused. */
  public record Refusal(Check check, String message) {}

  private SlackSignature() {}

  /**
   * Verifies one request; empty when it is signed with {@code secret} and fresh.
   *
   * @param timestamp the X-Slack-Request-Timestamp header as sent (null when absent)
   * @param signature the X-Slack-Signature header as sent (null when absent)
   * @param body the raw body bytes, exactly as received
   */
  public static Optional<Refusal> verify(
      byte[] secret, String timestamp, String signature, byte[] body, Instant now) {
    if (timestamp == null || timestamp.isBlank()) {
      return refuse(
          Check.MISSING_HEADER,
          "missing " + TIMESTAMP_HEADER + " header: requests must come from Slack");
    }
    if (signature == null || signature.isBlank()) {
      return refuse(
          Check.MISSING_HEADER,
          "missing " + SIGNATURE_HEADER + " header: requests must come from Slack");
    }
    if (!timestamp.matches("\\d{1,12}")) {
      return refuse(
          Check.BAD_TIMESTAMP, TIMESTAMP_HEADER + " is not a number of seconds since the epoch");
    }
    long skewSeconds = now.getEpochSecond() - Long.parseLong(timestamp);
    if (Math.abs(skewSeconds) > MAX_AGE.toSeconds()) {
      String when = skewSeconds > 0 ? skewSeconds + " s old" : -skewSeconds + " s in the future";
      return refuse(
          Check.STALE_TIMESTAMP,
          TIMESTAMP_HEADER
              + " is "
              + when
              + ", more than "
              + MAX_AGE.toMinutes()
              + " minutes from this server's clock: a replayed request, or a clock out of sync (check NTP)");
    }
    byte[] presented = presentedMac(signature);
    if (presented == null) {
      return refuse(
          Check.MALFORMED_SIGNATURE, SIGNATURE_HEADER + " is not 'v0=' followed by 64 hex digits");
    }
    if (!MessageDigest.isEqual(presented, mac(secret, timestamp, body))) {
      return refuse(
          Check.SIGNATURE_MISMATCH,
          SIGNATURE_HEADER
              + " does not match the body: the request was not signed with"
              + " this app's signing secret (runbooks.slack.signing-secret-file), or the body was changed on the way");
    }
    return Optional.empty();
  }

  /** The header value Slack sends for this body: {@code v0=<hex>}. */
  public static String sign(byte[] secret, String timestamp, byte[] body) {
    return "v0=" + HexFormat.of().formatHex(mac(secret, timestamp, body));
  }

  private static byte[] presentedMac(String signature) {
    if (!signature.startsWith("v0=") || signature.length() != 3 + 64) return null;
    try {
      return HexFormat.of().parseHex(signature, 3, signature.length());
    } catch (IllegalArgumentException notHex) {
      return null;
    }
  }

  private static byte[] mac(byte[] secret, String timestamp, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      mac.update(("v0:" + timestamp + ":").getBytes(StandardCharsets.US_ASCII));
      return mac.doFinal(body);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("this JVM has no HmacSHA256", e);
    }
  }

  private static Optional<Refusal> refuse(Check check, String message) {
    return Optional.of(new Refusal(check, message));
  }
}
