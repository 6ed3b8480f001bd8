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
 * Slack's interactivity request URL: {@code POST /slack/interactions} takes the clicks on the
 * Approve and Cancel buttons of a runbook waiting for approval. Verified exactly as slash commands
 * are ({@link SlackRequestVerifier}) before the payload is read; a verified click is answered 200
 * at once and carried out by {@link SlackInteractionHandler}, which posts the outcome to the
 * click's response URL.
 */
@Controller("/slack")
@ExecuteOn(TaskExecutors.BLOCKING)
public final class SlackInteractionController {

  /** A click's payload carries the whole message clicked; Slack keeps it well under this. */
  static final int MAX_BODY_BYTES = 64 * 1024;

  static final SlackRequestVerifier.Endpoint ENDPOINT =
      new SlackRequestVerifier.Endpoint(
          "/slack/interactions", "interaction payload", MAX_BODY_BYTES);

  private final SlackRequestVerifier verifier;
  private final SlackInteractionHandler handler;

  SlackInteractionController(SlackRequestVerifier verifier, SlackInteractionHandler handler) {
    this.verifier = verifier;
    this.handler = handler;
  }

  // consumes ALL and byte[], as the slash command: the signature is computed over the raw body
  @OwnAuthentication(
      "Slack's request signature; a click then needs the Slack user's role for its button's"
          + " ApiAction")
  @Post(uri = "/interactions", consumes = MediaType.ALL, produces = MediaType.APPLICATION_JSON)
  public HttpResponse<?> interaction(HttpRequest<byte[]> request) {
    byte[] raw = request.getBody().orElseGet(() -> new byte[0]);
    Optional<? extends HttpResponse<?>> refused = verifier.refusal(ENDPOINT, request, raw);
    if (refused.isPresent()) return refused.get();
    SlackInteraction click;
    try {
      click = SlackInteraction.parse(raw);
    } catch (IllegalArgumentException e) {
      return verifier.unreadable(ENDPOINT, e.getMessage()).orElseThrow();
    }
    return handler.accept(click).<HttpResponse<?>>map(HttpResponse::ok).orElseGet(HttpResponse::ok);
  }
}
