package io.etcdrunbooks.api.slack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.api.auth.Role;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The payload of a click on Approve or Cancel, and the buttons it comes from. */
class SlackInteractionTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String RUN = "0f0c5c2e-6b3a-4f7e-9d55-2b1f4c7a9e10";

  @Test
  void aClickOnApproveIsReadAsTheUserTheButtonAndTheRunItNames() {
    SlackInteraction click =
        SlackInteraction.parse(
            form(SlackClicks.payload("runbook-approve", "change-prod-1/" + RUN)));

    assertThat(click)
        .isEqualTo(
            new SlackInteraction(
                "U024BE7LH",
                "alice",
                SlackButtons.Action.APPROVE,
                new SlackButtons.Target("change-prod-1", RUN),
                "https://hooks.slack.com/actions/T1/1/abc"));
    assertThat(click.action().apiAction().role()).isEqualTo(Role.OPERATOR);
    assertThat(
            SlackInteraction.parse(
                    form(SlackClicks.payload("runbook-cancel", "change-prod-1/" + RUN)))
                .action())
        .isEqualTo(SlackButtons.Action.CANCEL);
  }

  @Test
  void aPayloadThatIsNoClickOnOurButtonsIsRefusedWithoutQuotingIt() {
    assertThatThrownBy(() -> SlackInteraction.parse(form(null))).hasMessageContaining("no payload");
    assertThatThrownBy(() -> SlackInteraction.parse("payload=%7Bsecret-token".getBytes()))
        .hasMessage("the payload is not JSON");
    assertThatThrownBy(
            () ->
                SlackInteraction.parse(
                    form(
                        SlackClicks.payload("runbook-approve", "x/" + RUN)
                            .replace("block_actions", "shortcut"))))
        .hasMessageContaining("'shortcut'", "only block_actions");
    assertThatThrownBy(
            () ->
                SlackInteraction.parse(
                    form(SlackClicks.payload("runbook-restore", "change-prod-1/" + RUN))))
        .hasMessageContaining("not one of this server's buttons");
    assertThatThrownBy(
            () ->
                SlackInteraction.parse(
                    form(SlackClicks.payload("runbook-approve", "change-prod-1"))))
        .hasMessageContaining("<workflowId>/<runId>");
    assertThatThrownBy(
            () ->
                SlackInteraction.parse(form(SlackClicks.payload("runbook-approve", "../x/" + RUN))))
        .hasMessageContaining("<workflowId>/<runId>");
    assertThatThrownBy(
            () ->
                SlackInteraction.parse(
                    form(
                        SlackClicks.payload("runbook-approve", "change-prod-1/" + RUN)
                            .replace("U024BE7LH", ""))))
        .hasMessageContaining("no user.id");
  }

  @Test
  void theApprovalMessageCarriesApproveAndCancelNamingTheRunAndKeepsItsText() throws Exception {
    SlackReply reply =
        SlackReply.inChannel("`change-prod-1`: waiting for approval")
            .withBlocks(
                SlackButtons.approval(
                    "`change-prod-1`: waiting for approval",
                    new SlackButtons.Target("change-prod-1", RUN)));

    JsonNode json = JSON.readTree(JSON.writeValueAsString(reply));

    assertThat(json.path("text").asText()).isEqualTo("`change-prod-1`: waiting for approval");
    assertThat(json.has("replace_original")).isFalse();
    assertThat(json.path("blocks").get(0).path("text").path("text").asText())
        .contains("waiting for approval");
    JsonNode buttons = json.path("blocks").get(1).path("elements");
    assertThat(buttons).hasSize(2);
    assertThat(buttons.get(0).path("action_id").asText()).isEqualTo("runbook-approve");
    assertThat(buttons.get(0).path("text").path("text").asText()).isEqualTo("Approve");
    assertThat(buttons.get(1).path("action_id").asText()).isEqualTo("runbook-cancel");
    assertThat(buttons.get(1).path("confirm").isObject()).isTrue();
    for (JsonNode button : buttons) {
      assertThat(button.path("value").asText()).isEqualTo("change-prod-1/" + RUN);
      assertThat(SlackButtons.Target.parse(button.path("value").asText()))
          .contains(new SlackButtons.Target("change-prod-1", RUN));
    }
  }

  static byte[] form(String payload) {
    String body =
        "team_id=T1"
            + (payload == null
                ? ""
                : "&payload=" + URLEncoder.encode(payload, StandardCharsets.UTF_8));
    return body.getBytes(StandardCharsets.US_ASCII);
  }
}
