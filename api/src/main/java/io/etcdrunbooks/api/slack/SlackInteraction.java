package io.etcdrunbooks.api.slack;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;

/**
 * A click on one of {@link SlackButtons}, parsed from Slack's interaction request (a form whose
 * {@code payload} field is JSON of type {@code block_actions}) after its signature was verified.
 *
 * @param userId Slack's user.id, the identity that is mapped to a role
 * @param userName Slack's user.username, only for messages, memos and the audit log
 * @param action the button clicked
 * @param target the run the button was posted for
 * @param responseUrl where the outcome of the click is posted (empty when absent)
 */
public record SlackInteraction(
    String userId,
    String userName,
    SlackButtons.Action action,
    SlackButtons.Target target,
    String responseUrl) {

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Parses the raw form body. Messages never quote the payload: it carries Slack's verification
   * token.
   *
   * @throws IllegalArgumentException saying what is missing or wrong
   */
  public static SlackInteraction parse(byte[] body) {
    String payload = SlackForm.fields(new String(body, StandardCharsets.UTF_8)).get("payload");
    if (payload == null || payload.isBlank()) {
      throw new IllegalArgumentException(
          "the form has no payload: this endpoint takes Slack's interaction payloads");
    }
    JsonNode root;
    try {
      root = JSON.readTree(payload);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("the payload is not JSON");
    }
    if (root == null || !root.isObject())
      throw new IllegalArgumentException("the payload is not a JSON object");
    String type = root.path("type").asText("");
    if (!type.equals("block_actions")) {
      throw new IllegalArgumentException(
          "the payload's type is '"
              + SlackCommandHandler.printable(type)
              + "': only block_actions (button clicks) are taken");
    }
    JsonNode user = root.path("user");
    String userId = user.path("id").asText("").strip();
    if (userId.isEmpty()) throw new IllegalArgumentException("the payload has no user.id");
    JsonNode clicked = root.path("actions").path(0);
    String actionId = clicked.path("action_id").asText("");
    SlackButtons.Action action =
        SlackButtons.Action.byActionId(actionId)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "the payload's action is not one of this server's buttons ("
                            + SlackButtons.Action.APPROVE.actionId()
                            + ", "
                            + SlackButtons.Action.CANCEL.actionId()
                            + ")"));
    SlackButtons.Target target =
        SlackButtons.Target.parse(clicked.path("value").asText(null))
            .orElseThrow(
                () ->
                    new IllegalArgumentException("the button's value is not <workflowId>/<runId>"));
    String userName = user.path("username").asText(user.path("name").asText(""));
    return new SlackInteraction(
        userId, userName, action, target, root.path("response_url").asText(""));
  }
}
