package io.etcdrunbooks.api.slack;

import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The checks every request from Slack passes before anything in it is read: a signing secret is
 * loaded, the body is small enough and form-encoded, and its signature and timestamp verify over
 * the raw body ({@link SlackSignature}). A request that fails gets 401 (413 when too large, 415
 * when not a form) with a JSON message naming the check, and is written to the audit log.
 */
@Singleton
public final class SlackRequestVerifier {

  private static final Logger AUDIT = LoggerFactory.getLogger("etcd-runbooks.audit");
  private static final String FORM = MediaType.APPLICATION_FORM_URLENCODED;

  /**
   * What a Slack endpoint takes: its path for the audit log, what Slack sends to it, a size cap.
   */
  public record Endpoint(String path, String sends, int maxBodyBytes) {}

  /**
   * A refusal: {@code error} as Slack integrations expect it, {@code message} as every other error
   * answer of this API.
   */
  public record SlackRefusal(String error, String message) {
    SlackRefusal(String why) {
      this(why, why);
    }
  }

  private final SlackSigningSecret secret;
  private final Clock clock;

  SlackRequestVerifier(SlackSigningSecret secret) {
    this.secret = secret;
    this.clock = Clock.systemUTC();
  }

  /** The answer refusing the request, or empty when it is Slack's and fresh. */
  public Optional<HttpResponse<SlackRefusal>> refusal(
      Endpoint endpoint, HttpRequest<?> request, byte[] raw) {
    Optional<byte[]> key = secret.key();
    if (key.isEmpty()) {
      // Why (a file name, its mode) stays in the log: this endpoint faces the internet.
      return refuse(
          endpoint,
          HttpStatus.UNAUTHORIZED,
          "Slack is not configured on this server: no signing secret is loaded"
              + " (runbooks.slack.signing-secret-file; the server log says why)",
          "Slack is not configured: " + secret.unusable().orElse("no signing secret is loaded"));
    }
    if (raw.length > endpoint.maxBodyBytes()) {
      return refuse(
          endpoint,
          HttpStatus.REQUEST_ENTITY_TOO_LARGE,
          "the body has "
              + raw.length
              + " bytes; a Slack "
              + endpoint.sends()
              + " has at most "
              + endpoint.maxBodyBytes(),
          null);
    }
    Optional<MediaType> contentType = request.getContentType();
    if (contentType.isEmpty() || !FORM.equalsIgnoreCase(contentType.get().getName())) {
      return refuse(
          endpoint,
          HttpStatus.UNSUPPORTED_MEDIA_TYPE,
          "Content-Type must be "
              + FORM
              + " (as Slack sends "
              + endpoint.sends()
              + "s), got "
              + contentType.map(MediaType::getName).orElse("none"),
          null);
    }
    Optional<SlackSignature.Refusal> refusal =
        SlackSignature.verify(
            key.get(),
            request.getHeaders().get(SlackSignature.TIMESTAMP_HEADER),
            request.getHeaders().get(SlackSignature.SIGNATURE_HEADER),
            raw,
            clock.instant());
    return refusal.isPresent()
        ? refuse(endpoint, HttpStatus.UNAUTHORIZED, refusal.get().message(), null)
        : Optional.empty();
  }

  /** An answer refusing a verified request whose body cannot be read. */
  public Optional<HttpResponse<SlackRefusal>> unreadable(Endpoint endpoint, String why) {
    return refuse(endpoint, HttpStatus.BAD_REQUEST, why, null);
  }

  /**
   * @param logged what the audit log says, when it says more than the answer; null: the same
   */
  private static Optional<HttpResponse<SlackRefusal>> refuse(
      Endpoint endpoint, HttpStatus status, String why, String logged) {
    AUDIT.warn(
        "who=- refused POST {} -> {}: {}",
        endpoint.path(),
        status.getCode(),
        logged == null ? why : logged);
    return Optional.of(HttpResponse.<SlackRefusal>status(status).body(new SlackRefusal(why)));
  }
}
