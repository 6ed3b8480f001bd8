package io.etcdrunbooks.api.slack;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.etcdrunbooks.api.auth.ApiAction;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The Approve and Cancel buttons of a runbook waiting for approval, as Slack's Block Kit lays them
 * out. Each button names the run it was posted for ({@link Target}), so a click can never act on a
 * later run under the same workflow id.
 */
public final class SlackButtons {

  /** What a button does, with the id Slack sends back and the API action whose role it needs. */
  public enum Action {
    APPROVE("runbook-approve", "Approve", "primary", ApiAction.APPROVE),
    CANCEL("runbook-cancel", "Cancel", "danger", ApiAction.CANCEL);

    private final String actionId;
    private final String label;
    private final String style;
    private final ApiAction apiAction;

    Action(String actionId, String label, String style, ApiAction apiAction) {
      this.actionId = actionId;
      this.label = label;
      this.style = style;
      this.apiAction = apiAction;
    }

    public String actionId() {
      return actionId;
    }

    public String label() {
      return label;
    }

    public ApiAction apiAction() {
      return apiAction;
    }

    static Optional<Action> byActionId(String actionId) {
      return Arrays.stream(values()).filter(a -> a.actionId.equals(actionId)).findFirst();
    }
  }

  /** One run of a runbook: a button's {@code value} is {@code <workflowId>/<runId>}. */
  public record Target(String workflowId, String runId) {

    private static final String RUN_ID = "[A-Za-z0-9-]{1,64}";

    public String value() {
      return workflowId + "/" + runId;
    }

    /** The run a button's value names; empty when the value is not one this server wrote. */
    static Optional<Target> parse(String value) {
      if (value == null) return Optional.empty();
      int slash = value.indexOf('/');
      if (slash < 0) return Optional.empty();
      String workflowId = value.substring(0, slash);
      String runId = value.substring(slash + 1);
      return workflowId.matches(SlackCommand.NAME) && runId.matches(RUN_ID)
          ? Optional.of(new Target(workflowId, runId))
          : Optional.empty();
    }
  }

  /** Block Kit text: mrkdwn for what we write, plain_text for button labels. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Text(String type, String text) {
    static Text mrkdwn(String text) {
      return new Text("mrkdwn", text);
    }

    static Text plain(String text) {
      return new Text("plain_text", text);
    }
  }

  /** The dialog Slack shows before a dangerous click goes through. */
  public record Confirm(Text title, Text text, Text confirm, Text deny) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Button(
      String type,
      @JsonProperty("action_id") String actionId,
      Text text,
      String style,
      String value,
      Confirm confirm) {}

  /** A block of the message: a section of text, or a row of buttons. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Block(
      String type, @JsonProperty("block_id") String blockId, Text text, List<Button> elements) {}

  static final String ACTIONS_BLOCK = "runbook-approval";

  private SlackButtons() {}

  /**
   * The blocks of an approval message: {@code text} (mrkdwn, already escaped), then Approve and
   * Cancel for {@code target}. Slack shows the message's plain {@code text} where blocks cannot be
   * shown (notifications), so the caller sends the same text as the fallback.
   */
  public static List<Block> approval(String text, Target target) {
    Button approve = button(Action.APPROVE, target, null);
    Button cancel =
        button(
            Action.CANCEL,
            target,
            new Confirm(
                Text.plain("Cancel " + target.workflowId() + "?"),
                Text.mrkdwn("The runbook stops before its first change."),
                Text.plain("Cancel the runbook"),
                Text.plain("Keep it waiting")));
    return List.of(
        new Block("section", null, Text.mrkdwn(text), null),
        new Block("actions", ACTIONS_BLOCK, null, List.of(approve, cancel)));
  }

  private static Button button(Action action, Target target, Confirm confirm) {
    return new Button(
        "button",
        action.actionId(),
        Text.plain(action.label()),
        action.style,
        target.value(),
        confirm);
  }
}
