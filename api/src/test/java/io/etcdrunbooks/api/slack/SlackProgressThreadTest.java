package io.etcdrunbooks.api.slack;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.etcdrunbooks.api.testing.ApiHarness;
import io.etcdrunbooks.api.testing.FakeSlack;
import io.etcdrunbooks.api.testing.FakeSlack.Posted;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
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
 * With a bot token, a followed runbook's progress is one thread: the first message in the channel,
 * the approval with its buttons and the end as replies. Slack's Web API and the response URLs are
 * one {@link FakeSlack} on 127.0.0.1.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SlackProgressThreadTest {

  @TempDir static Path dir;

  private static final String BOT_TOKEN = "xoxb-" + UUID.randomUUID();

  private FakeSlack slack;
  private ApiHarness api;

  @BeforeAll
  void start() throws Exception {
    slack = FakeSlack.start();
    Path tokenFile = dir.resolve("bot-token");
    Files.createFile(
        tokenFile,
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(tokenFile, BOT_TOKEN + "\n");
    api =
        ApiHarness.start(
            dir,
            Map.of(
                "runbooks.slack.bot-token-file",
                tokenFile.toString(),
                "runbooks.slack.api-url",
                base() + "api/",
                "runbooks.slack.response-url-prefix",
                base(),
                "runbooks.slack.progress-interval-seconds",
                1));
  }

  @AfterAll
  void stop() {
    if (api != null) api.close();
    if (slack != null) slack.close();
  }

  @Test
  void theApprovalStartsTheThreadWithItsButtonsAndTheEndIsAReplyInIt() throws Exception {
    String runId = api.startUpgradeAwaitingApproval("thread-upgrade");
    SlackProgressFollower follower = api.context.getBean(SlackProgressFollower.class);
    assertThat(follower.postsInThread("C1")).isTrue();

    assertThat(follower.follow("thread-upgrade", URI.create(base() + "commands/1"), "C1")).isTrue();

    Posted first = next();
    assertThat(first.path()).isEqualTo("/api/chat.postMessage");
    assertThat(first.authorization()).isEqualTo("Bearer " + BOT_TOKEN);
    assertThat(first.body().path("channel").asText()).isEqualTo("C1");
    assertThat(first.body().has("thread_ts")).as("the first message is in the channel").isFalse();
    assertThat(first.text()).contains("`thread-upgrade`: phase AWAITING_APPROVAL");
    JsonNode buttons = first.body().path("blocks").get(1).path("elements");
    assertThat(buttons.findValuesAsText("action_id"))
        .containsExactly("runbook-approve", "runbook-cancel");
    assertThat(buttons.findValuesAsText("value")).containsOnly("thread-upgrade/" + runId);

    api.client.newWorkflowStub(UpgradeClusterWorkflow.class, "thread-upgrade").approve("test");

    List<Posted> replies = new ArrayList<>();
    while (replies.isEmpty() || !replies.get(replies.size() - 1).text().contains("completed")) {
      replies.add(next());
    }
    assertThat(replies)
        .allSatisfy(
            reply -> {
              assertThat(reply.path()).isEqualTo("/api/chat.postMessage");
              assertThat(reply.body().path("thread_ts").asText()).isEqualTo("1700000000.000001");
            });
  }

  @Test
  void aChannelTheBotMayNotPostInGetsTheProgressOnTheResponseUrl() throws Exception {
    api.startUpgradeAwaitingApproval("thread-nobot");
    api.context
        .getBean(SlackProgressFollower.class)
        .follow("thread-nobot", URI.create(base() + "commands/2"), FakeSlack.NOT_INVITED);

    Posted refused = next();
    assertThat(refused.path()).isEqualTo("/api/chat.postMessage");
    Posted fallback = next();
    assertThat(fallback.path()).isEqualTo("/commands/2");
    assertThat(fallback.text()).contains("`thread-nobot`: phase AWAITING_APPROVAL");
    assertThat(fallback.body().path("blocks").get(1).path("elements").size()).isEqualTo(2);
    assertThat(fallback.authorization()).isNull();

    api.client.newWorkflowStub(UpgradeClusterWorkflow.class, "thread-nobot").approve("test");
    Posted end = next();
    assertThat(end.path()).isEqualTo("/commands/2");
    assertThat(end.text()).contains("completed");
  }

  private Posted next() throws InterruptedException {
    return slack.next();
  }

  private String base() {
    return slack.base();
  }
}
