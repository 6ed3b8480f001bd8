package io.etcdrunbooks.api.slack;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.etcdrunbooks.api.testing.ApiHarness;
import io.etcdrunbooks.api.testing.FakeSlack;
import io.etcdrunbooks.api.testing.FakeSlack.Posted;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import java.net.URI;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runbooks started elsewhere than Slack (here: straight through Temporal's client, as the Web UI or
 * Alertmanager would) that wait for approval get Approve and Cancel in
 * runbooks.slack.approvals-channel; a click on them goes through the same checks as any other.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SlackApprovalsChannelTest {

  @TempDir static Path dir;

  private static final String SECRET = "slack-secret-" + UUID.randomUUID();
  private static final String CHANNEL = "C0APPROVALS";
  private static final String OPERATOR = "U0OPERATOR1";
  private static final String VIEWER = "U0VIEWER01";

  private FakeSlack slack;
  private ApiHarness api;
  private SlackClicks clicks;

  @BeforeAll
  void start() throws Exception {
    slack = FakeSlack.start();
    api =
        ApiHarness.start(
            dir,
            Map.of(
                "runbooks.slack.signing-secret-file",
                privateFile("signing-secret", SECRET).toString(),
                "runbooks.slack.bot-token-file",
                privateFile("bot-token", "xoxb-" + UUID.randomUUID()).toString(),
                "runbooks.slack.api-url",
                slack.base() + "api/",
                "runbooks.slack.response-url-prefix",
                slack.base(),
                "runbooks.slack.progress-interval-seconds",
                1,
                "runbooks.slack.approvals-channel",
                CHANNEL,
                "runbooks.slack.users." + OPERATOR + ".role",
                "operator",
                "runbooks.slack.users." + VIEWER + ".role",
                "viewer"));
    clicks = new SlackClicks(api.server.getPort(), SECRET, slack.base());
  }

  @AfterAll
  void stop() {
    if (api != null) api.close();
    if (slack != null) slack.close();
  }

  @Test
  void aRunbookWaitingUnseenIsAnnouncedOnceAndItsButtonApprovesIt() throws Exception {
    String runId = api.startUpgradeAwaitingApproval("channel-approve");

    Posted announced = slack.next(p -> announces(p, "channel-approve"));
    assertThat(announced.body().path("channel").asText()).isEqualTo(CHANNEL);
    assertThat(announced.body().has("thread_ts")).isFalse();
    assertThat(announced.text())
        .contains("`channel-approve` (UpgradeCluster, cluster sandbox) waits for approval");
    JsonNode buttons = announced.body().path("blocks").get(1).path("elements");
    assertThat(buttons.findValuesAsText("action_id"))
        .containsExactly("runbook-approve", "runbook-cancel");
    assertThat(buttons.findValuesAsText("value")).containsOnly("channel-approve/" + runId);
    assertThat(slack.within(3, p -> announces(p, "channel-approve")))
        .as("one message per run, not one per poll")
        .isNull();

    String value = buttons.get(0).path("value").asText();
    HttpResponse<String> viewer = clicks.click(VIEWER, "runbook-approve", value);
    assertThat(viewer.statusCode()).isEqualTo(200);
    assertThat(slack.next(Posted::isResponse).text()).contains("Approve needs operator");

    clicks.click(OPERATOR, "runbook-approve", value);
    assertThat(slack.next(Posted::isResponse).text())
        .contains("<@" + OPERATOR + "> approved `channel-approve`");
    api.client
        .newUntypedWorkflowStub("channel-approve")
        .getResult(30, TimeUnit.SECONDS, Object.class);
  }

  @Test
  void onceApprovedElsewhereItsMessageLosesItsButtonsAndSaysWhoApproved() throws Exception {
    api.startUpgradeAwaitingApproval("channel-elsewhere");
    Posted announced = slack.next(p -> announces(p, "channel-elsewhere"));
    assertThat(slack.within(2, p -> updates(p, "channel-elsewhere")))
        .as("no update while it waits")
        .isNull();

    api.client
        .newWorkflowStub(UpgradeClusterWorkflow.class, "channel-elsewhere")
        .approve("alice (api)");

    Posted update = slack.next(p -> updates(p, "channel-elsewhere"));
    assertThat(update.body().path("channel").asText()).isEqualTo(CHANNEL);
    assertThat(update.body().path("ts").asText()).isEqualTo(announced.ts());
    assertThat(update.body().path("blocks").isArray()).isTrue();
    assertThat(update.body().path("blocks")).isEmpty();
    assertThat(update.text())
        .contains("`channel-elsewhere` (UpgradeCluster, cluster sandbox) no longer waits")
        .contains("approve by alice (api)");
    assertThat(slack.within(3, p -> updates(p, "channel-elsewhere"))).as("updated once").isNull();
    api.client
        .newUntypedWorkflowStub("channel-elsewhere")
        .getResult(30, TimeUnit.SECONDS, Object.class);
  }

  @Test
  void aRunbookFollowedFromSlackGetsItsButtonsInItsThreadOnly() throws Exception {
    SlackProgressFollower follower = api.context.getBean(SlackProgressFollower.class);
    api.startUpgradeAwaitingApproval("channel-followed");
    assertThat(follower.follow("channel-followed", URI.create(slack.base() + "commands/1"), "C1"))
        .isTrue();

    Posted inThread = slack.next(p -> p.isChatMessage() && p.text().contains("`channel-followed`"));
    assertThat(inThread.body().path("channel").asText()).isEqualTo("C1");
    assertThat(slack.within(3, p -> announces(p, "channel-followed"))).isNull();

    api.client.newWorkflowStub(UpgradeClusterWorkflow.class, "channel-followed").approve("test");
    // the follower reads the result once the run ends, which lets Temporal's test server skip
    // time: waited for here so that it does not happen during the other test
    assertThat(slack.next(p -> p.text().contains("`channel-followed` completed"))).isNotNull();
  }

  private static boolean updates(Posted p, String workflowId) {
    return p.isChatUpdate() && p.text().contains("`" + workflowId + "`");
  }

  private static boolean announces(Posted p, String workflowId) {
    return p.isChatMessage()
        && CHANNEL.equals(p.body().path("channel").asText())
        && p.text().contains("`" + workflowId + "`");
  }

  private static Path privateFile(String name, String content) throws Exception {
    Path file = dir.resolve(name);
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, content + "\n");
    return file;
  }
}
