package io.etcdrunbooks.api.slack;

import io.etcdrunbooks.runtime.http.OwnAuthentication;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.time.Clock;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Slack's slash command: {@code POST /slack/commands}, outside {@code /api/v1} because Slack
 * authenticates by signing each request, not with a bearer token. Nothing is read from a request
 * before its signature and timestamp are verified over the raw body; a request that fails gets 401
 * (413 when too large, 415 when not a form) with a JSON message naming the check, and is written to
 * the audit log. Verified commands are answered at once by {@link SlackCommandHandler}.
 */
@Controller("/slack")
@ExecuteOn(TaskExecutors.BLOCKING)
public final class SlackCommandController {

  /**
   * Slash command bodies are well under 4 KiB (Slack caps the text); a larger one is not Slack's.
   */
  static final int MAX_BODY_BYTES = 8 * 1024;

  private static final Logger AUDIT = LoggerFactory.getLogger("etcd-runbooks.audit");
  private static final String FORM = MediaType.APPLICATION_FORM_URLENCODED;

  private final SlackSigningSecret secret;
  private final SlackCommandHandler handler;
  private final Clock clock;

  SlackCommandController(SlackSigningSecret secret, SlackCommandHandler handler) {
    this.secret = secret;
    this.handler = handler;
    this.clock = Clock.systemUTC();
  }

  /**
   * A refusal: {@code error} as Slack integrations expect it, {@code message} as every other error
   * answer of this API.
   */
  public record SlackRefusal(String error, String message) {
    SlackRefusal(String why) {
      this(why, why);
    }
  }

  // consumes ALL, and the request typed by byte[]: Micronaut then hands over the body exactly as
  // received (or none),
  // which the signature is computed over; the content type is checked here so that a wrong one gets
  // a message saying
  // what is expected.
  @OwnAuthentication(
      "Slack's request signature; the command then needs the Slack user's role for its ApiAction")
  @Post(uri = "/commands", consumes = MediaType.ALL, produces = MediaType.APPLICATION_JSON)
  public HttpResponse<?> command(HttpRequest<byte[]> request) {
    byte[] raw = request.getBody().orElseGet(() -> new byte[0]);
    Optional<byte[]> key = secret.key();
    if (key.isEmpty()) {
      // Why (a file name, its mode) stays in the log: this endpoint faces the internet.
      return refuse(
          HttpStatus.UNAUTHORIZED,
          "Slack is not configured on this server: no signing secret is loaded"
              + " (runbooks.slack.signing-secret-file; the server log says why)",
          "Slack is not configured: " + secret.unusable().orElse("no signing secret is loaded"));
    }
    if (raw.length > MAX_BODY_BYTES) {
      return refuse(
          HttpStatus.REQUEST_ENTITY_TOO_LARGE,
          "the body has "
              + raw.length
              + " bytes; a Slack slash command has at"
              + " most "
              + MAX_BODY_BYTES,
          null);
    }
    Optional<MediaType> contentType = request.getContentType();
    if (contentType.isEmpty() || !FORM.equalsIgnoreCase(contentType.get().getName())) {
      return refuse(
          HttpStatus.UNSUPPORTED_MEDIA_TYPE,
          "Content-Type must be "
              + FORM
              + " (as Slack sends slash commands), got "
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
    if (refusal.isPresent()) return refuse(HttpStatus.UNAUTHORIZED, refusal.get().message(), null);
    SlackForm form;
    try {
      form = SlackForm.parse(raw);
    } catch (IllegalArgumentException e) {
      return refuse(HttpStatus.BAD_REQUEST, e.getMessage(), null);
    }
    return HttpResponse.ok(handler.handle(form));
  }

  /**
   * @param logged what the audit log says, when it says more than the answer; null: the same
   */
  private static HttpResponse<SlackRefusal> refuse(HttpStatus status, String why, String logged) {
    AUDIT.warn(
        "who=- refused POST /slack/commands -> {}: {}",
        status.getCode(),
        logged == null ? why : logged);
    return HttpResponse.<SlackRefusal>status(status).body(new SlackRefusal(why));
  }
}
