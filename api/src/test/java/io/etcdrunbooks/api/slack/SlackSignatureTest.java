package io.etcdrunbooks.api.slack;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.api.slack.SlackSignature.Check;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Slack's request signature, checked against the worked example of Slack's "Verifying requests from
 * Slack" (api.slack.com/docs/verifying-requests-from-slack): its secret, timestamp, body and
 * signature.
 */
class SlackSignatureTest {

  private static final byte[] SECRET =
      "8f742231b10e8888abcd99yyyzzz85a5".getBytes(StandardCharsets.UTF_8);
  private static final String TIMESTAMP = "1531420618";
  private static final Instant AT_TIMESTAMP = Instant.ofEpochSecond(1531420618L);
  private static final byte[] BODY =
      ("token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow"
              + "&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text="
              + "&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN"
              + "&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c")
          .getBytes(StandardCharsets.US_ASCII);
  private static final String SIGNATURE =
      "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503";

  @Test
  void slacksOwnExampleIsValid() {
    assertThat(SlackSignature.verify(SECRET, TIMESTAMP, SIGNATURE, BODY, AT_TIMESTAMP)).isEmpty();
    assertThat(SlackSignature.sign(SECRET, TIMESTAMP, BODY)).isEqualTo(SIGNATURE);
  }

  @Test
  void aSignatureInUpperCaseHexIsTheSameSignature() {
    String upper = "v0=" + SIGNATURE.substring(3).toUpperCase();
    assertThat(SlackSignature.verify(SECRET, TIMESTAMP, upper, BODY, AT_TIMESTAMP)).isEmpty();
  }

  @Test
  void anyFlippedBitOfTheBodyIsAMismatch() {
    for (int i = 0; i < BODY.length; i++) {
      byte[] changed = BODY.clone();
      changed[i] ^= 0x01;
      assertThat(check(SlackSignature.verify(SECRET, TIMESTAMP, SIGNATURE, changed, AT_TIMESTAMP)))
          .as("byte %d", i)
          .isEqualTo(Check.SIGNATURE_MISMATCH);
    }
    byte[] longer =
        (new String(BODY, StandardCharsets.US_ASCII) + "&").getBytes(StandardCharsets.US_ASCII);
    assertThat(check(SlackSignature.verify(SECRET, TIMESTAMP, SIGNATURE, longer, AT_TIMESTAMP)))
        .isEqualTo(Check.SIGNATURE_MISMATCH);
  }

  @Test
  void aFlippedHexDigitOfTheSignatureIsAMismatch() {
    for (int i = 3; i < SIGNATURE.length(); i++) {
      char[] chars = SIGNATURE.toCharArray();
      chars[i] = chars[i] == '0' ? '1' : '0';
      assertThat(
              check(
                  SlackSignature.verify(SECRET, TIMESTAMP, new String(chars), BODY, AT_TIMESTAMP)))
          .as("digit %d", i)
          .isEqualTo(Check.SIGNATURE_MISMATCH);
    }
  }

  @Test
  void anotherSecretOrAnotherTimestampIsAMismatch() {
    byte[] other = "8f742231b10e8888abcd99yyyzzz85a6".getBytes(StandardCharsets.UTF_8);
    assertThat(check(SlackSignature.verify(other, TIMESTAMP, SIGNATURE, BODY, AT_TIMESTAMP)))
        .isEqualTo(Check.SIGNATURE_MISMATCH);
    // the timestamp is signed too: a fresh timestamp on an old signature does not pass
    assertThat(check(SlackSignature.verify(SECRET, "1531420619", SIGNATURE, BODY, AT_TIMESTAMP)))
        .isEqualTo(Check.SIGNATURE_MISMATCH);
  }

  @Test
  void aTimestampMoreThanFiveMinutesOldOrAheadIsStale() {
    Optional<SlackSignature.Refusal> old =
        SlackSignature.verify(SECRET, TIMESTAMP, SIGNATURE, BODY, AT_TIMESTAMP.plusSeconds(301));
    assertThat(check(old)).isEqualTo(Check.STALE_TIMESTAMP);
    assertThat(old.get().message()).contains("301 s old", "5 minutes");
    Optional<SlackSignature.Refusal> future =
        SlackSignature.verify(SECRET, TIMESTAMP, SIGNATURE, BODY, AT_TIMESTAMP.minusSeconds(301));
    assertThat(check(future)).isEqualTo(Check.STALE_TIMESTAMP);
    assertThat(future.get().message()).contains("301 s in the future");
    assertThat(check(SlackSignature.verify(SECRET, TIMESTAMP, SIGNATURE, BODY, Instant.now())))
        .isEqualTo(Check.STALE_TIMESTAMP);
    // five minutes exactly, either way, still pass
    assertThat(
            SlackSignature.verify(
                SECRET, TIMESTAMP, SIGNATURE, BODY, AT_TIMESTAMP.plusSeconds(300)))
        .isEmpty();
    assertThat(
            SlackSignature.verify(
                SECRET, TIMESTAMP, SIGNATURE, BODY, AT_TIMESTAMP.minusSeconds(300)))
        .isEmpty();
  }

  @Test
  void missingHeadersAreRefusedByName() {
    Optional<SlackSignature.Refusal> noTimestamp =
        SlackSignature.verify(SECRET, null, SIGNATURE, BODY, AT_TIMESTAMP);
    assertThat(check(noTimestamp)).isEqualTo(Check.MISSING_HEADER);
    assertThat(noTimestamp.get().message()).contains("X-Slack-Request-Timestamp");
    Optional<SlackSignature.Refusal> noSignature =
        SlackSignature.verify(SECRET, TIMESTAMP, null, BODY, AT_TIMESTAMP);
    assertThat(check(noSignature)).isEqualTo(Check.MISSING_HEADER);
    assertThat(noSignature.get().message()).contains("X-Slack-Signature");
    assertThat(check(SlackSignature.verify(SECRET, " ", SIGNATURE, BODY, AT_TIMESTAMP)))
        .isEqualTo(Check.MISSING_HEADER);
    assertThat(check(SlackSignature.verify(SECRET, TIMESTAMP, "", BODY, AT_TIMESTAMP)))
        .isEqualTo(Check.MISSING_HEADER);
  }

  @Test
  void aTimestampThatIsNotSecondsIsRefused() {
    for (String bad :
        new String[] {"1531420618.5", "-1531420618", "now", " 1531420618", "1531420618000000"}) {
      assertThat(check(SlackSignature.verify(SECRET, bad, SIGNATURE, BODY, AT_TIMESTAMP)))
          .as(bad)
          .isEqualTo(Check.BAD_TIMESTAMP);
    }
  }

  @Test
  void aSignatureThatIsNotV0HexIsMalformed() {
    String hex = SIGNATURE.substring(3);
    for (String bad :
        new String[] {
          hex,
          "v1=" + hex,
          "v0=" + hex.substring(1),
          "v0=" + hex + "0",
          "v0=" + hex.substring(1) + "g",
          "sha256=" + hex
        }) {
      assertThat(check(SlackSignature.verify(SECRET, TIMESTAMP, bad, BODY, AT_TIMESTAMP)))
          .as(bad)
          .isEqualTo(Check.MALFORMED_SIGNATURE);
    }
  }

  @Test
  void noRefusalShowsTheExpectedSignatureOrTheSecret() {
    String wrong = "v0=" + "0".repeat(64);
    String message =
        SlackSignature.verify(SECRET, TIMESTAMP, wrong, BODY, AT_TIMESTAMP).orElseThrow().message();
    assertThat(message)
        .contains("does not match")
        .doesNotContain(SIGNATURE.substring(3), new String(SECRET, StandardCharsets.UTF_8));
  }

  private static Check check(Optional<SlackSignature.Refusal> refusal) {
    return refusal.map(SlackSignature.Refusal::check).orElse(null);
  }
}
