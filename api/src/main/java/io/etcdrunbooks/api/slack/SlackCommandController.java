package io.etcdrunbooks.api.slack;

import io.etcdrunbooks.runtime.http.OwnAuthentication;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.util.Optional;

/**
 * Slack's slash command: {@code POST /slack/commands}, outside {@code /api/v1} because Slack
 * authenticates by signing each request, not with a bearer token. Nothing is read from a request
 * before {@link SlackRequestVerifier} has verified its signature and timestamp over the raw body.
 * Verified commands are answered at once by {@link SlackCommandHandler}.
 */
@Controller("/slack")
@ExecuteOn(TaskExecutors.BLOCKING)
public final class SlackCommandController {

  /**
   * Slash command bodies are well under 4 KiB (Slack caps the text); a larger one is not Slack's.
   */
  static final int MAX_BODY_BYTES = 8 * 1024;

  static final SlackRequestVerifier.Endpoint ENDPOINT =
      new SlackRequestVerifier.Endpoint("/slack/commands", "slash command", MAX_BODY_BYTES);

  private final SlackRequestVerifier verifier;
  private final SlackCommandHandler handler;

  SlackCommandController(SlackRequestVerifier verifier, SlackCommandHandler handler) {
    this.verifier = verifier;
    this.handler = handler;
  }

  // consumes ALL, and the request typed by byte[]: Micronaut then hands over the body exactly as
  // received (or none), which the signature is computed over; the content type is checked by the
  // verifier so that a wrong one gets a message saying what is expected.
  @OwnAuthentication(
      "Slack's request signature; the command then needs the Slack user's role for its ApiAction")
  @Post(uri = "/commands", consumes = MediaType.ALL, produces = MediaType.APPLICATION_JSON)
  public HttpResponse<?> command(HttpRequest<byte[]> request) {
    byte[] raw = request.getBody().orElseGet(() -> new byte[0]);
    Optional<? extends HttpResponse<?>> refused = verifier.refusal(ENDPOINT, request, raw);
    if (refused.isPresent()) return refused.get();
    SlackForm form;
    try {
      form = SlackForm.parse(raw);
    } catch (IllegalArgumentException e) {
      return verifier.unreadable(ENDPOINT, e.getMessage()).orElseThrow();
    }
    return HttpResponse.ok(handler.handle(form));
  }
}
