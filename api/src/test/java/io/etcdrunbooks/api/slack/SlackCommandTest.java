package io.etcdrunbooks.api.slack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.api.auth.ApiAction;
import io.etcdrunbooks.api.auth.Role;
import io.etcdrunbooks.workflows.RunbookCatalog;
import io.etcdrunbooks.workflows.RunbookDefinition;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The text of a slash command, the form it comes in, and the role each command needs. */
class SlackCommandTest {

  @Test
  void theFourCommandsAndHelp() {
    assertThat(SlackCommand.parse("status prod-1")).isEqualTo(new SlackCommand.Status("prod-1"));
    assertThat(SlackCommand.parse("upgrade prod-1 3.5.30"))
        .isEqualTo(new SlackCommand.Upgrade("prod-1", "3.5.30"));
    assertThat(SlackCommand.parse("approve change-prod-1"))
        .isEqualTo(new SlackCommand.Approve("change-prod-1"));
    assertThat(SlackCommand.parse("replace prod-1 m2"))
        .isEqualTo(new SlackCommand.Replace("prod-1", "m2"));
    assertThat(SlackCommand.parse("help")).isEqualTo(new SlackCommand.Help());
    assertThat(SlackCommand.parse("")).isEqualTo(new SlackCommand.Help());
    assertThat(SlackCommand.parse(null)).isEqualTo(new SlackCommand.Help());
  }

  @Test
  void maintenanceScaleAndRecoverQuorumWithTheRolesOfTheirApiCalls() {
    assertThat(SlackCommand.parse("maintenance prod-1"))
        .isEqualTo(new SlackCommand.Maintenance("prod-1"));
    assertThat(SlackCommand.parse("scale prod-1 3")).isEqualTo(new SlackCommand.Scale("prod-1", 3));
    assertThat(SlackCommand.parse("recover-quorum prod-1 acknowledge-data-loss"))
        .isEqualTo(new SlackCommand.RecoverQuorum("prod-1"));
    assertThat(SlackCommand.parse("maintenance prod-1").requiredRole()).isEqualTo(Role.OPERATOR);
    assertThat(SlackCommand.parse("scale prod-1 3").requiredRole()).isEqualTo(Role.ADMIN);
    assertThat(SlackCommand.parse("recover-quorum prod-1 acknowledge-data-loss").requiredRole())
        .isEqualTo(Role.ADMIN);
    assertThat(SlackCommand.parse("scale prod-1 3").namedCluster()).contains("prod-1");
    assertThat(SlackCommand.parse("approve change-prod-1").namedCluster()).isEmpty();
  }

  @Test
  void fleetTakesASelectorOrAFleetsNameAndNeedsAnAdmin() {
    SlackCommand.Fleet bySelector =
        (SlackCommand.Fleet) SlackCommand.parse("fleet env=prod,size=small 3.5.30");
    assertThat(bySelector.isSelector()).isTrue();
    assertThat(bySelector.fleet()).isEqualTo("env-prod-size-small");
    assertThat(bySelector.version()).isEqualTo("3.5.30");
    SlackCommand.Fleet byName = (SlackCommand.Fleet) SlackCommand.parse("fleet Prod 3.5.30");
    assertThat(byName.isSelector()).isFalse();
    assertThat(byName.fleet()).isEqualTo("prod");
    assertThat(((SlackCommand.Fleet) SlackCommand.parse("fleet * 3.5.30")).fleet())
        .isEqualTo("all");
    assertThat(byName.requiredRole()).isEqualTo(Role.ADMIN);
    assertThat(byName.namedCluster()).isEmpty();
    assertThat(problem("fleet env=prod")).contains("usage: fleet <selector or fleet> <version>");
    assertThat(problem("fleet env=<b>prod 3.5.30"))
        .contains("neither a fleet's name nor a selector");
    assertThat(problem("fleet prod 3.5.30;rm")).contains("is not a cluster, member, version");
  }

  @Test
  void recoverQuorumWithoutTheAcknowledgementAndScaleWithoutASizeAreInvalid() {
    assertThat(problem("recover-quorum prod-1"))
        .contains("usage: recover-quorum <cluster> acknowledge-data-loss", "are lost");
    assertThat(problem("recover-quorum prod-1 yes")).contains("acknowledge-data-loss");
    assertThat(problem("scale prod-1 five")).contains("usage: scale <cluster> <size>");
    assertThat(problem("scale prod-1")).contains("usage: scale <cluster> <size>");
  }

  /** A runbook the catalog gives a Slack verb but the slash command cannot start fails here. */
  @Test
  void everySlackVerbOfTheCatalogStartsItsRunbookWithTheRoleOfItsApiCall() {
    for (RunbookDefinition<?> runbook : RunbookCatalog.all()) {
      if (runbook.slackVerb().isEmpty()) continue;
      String verb = runbook.slackVerb().get();
      assertThat(SlackCommand.usage("/etcd"))
          .as("the help lists %s", verb)
          .contains("/etcd " + verb + " ");
      SlackCommand bare = SlackCommand.parse(verb);
      assertThat(bare)
          .as("%s without arguments gives its usage", verb)
          .isInstanceOf(SlackCommand.Invalid.class);
      assertThat(((SlackCommand.Invalid) bare).problem())
          .as(verb)
          .startsWith("usage: " + verb + " ");
      SlackCommand command = SlackCommand.parse(verb + " " + EXAMPLES.get(runbook.type()));
      assertThat(command).as("%s with arguments", verb).isInstanceOf(SlackCommand.Starts.class);
      assertThat(((SlackCommand.Starts) command).runbook()).isSameAs(runbook);
      assertThat(command.requiredRole()).isEqualTo(ApiAction.starting(runbook).role());
    }
  }

  /** Arguments of each runbook's Slack verb. */
  private static final Map<String, String> EXAMPLES =
      Map.of(
          "UpgradeCluster", "prod-1 3.5.30",
          "ReplaceMember", "prod-1 m2",
          "Maintenance", "prod-1",
          "ScaleCluster", "prod-1 3",
          "RecoverQuorum", "prod-1 acknowledge-data-loss",
          "FleetUpgrade", "env=prod 3.5.30");

  @Test
  void theVerbIgnoresCaseAndWordsAnySpacing() {
    assertThat(SlackCommand.parse("  UpGrade \t prod-1   3.5.30 "))
        .isEqualTo(new SlackCommand.Upgrade("prod-1", "3.5.30"));
    assertThat(SlackCommand.parse("Status Prod_1")).isEqualTo(new SlackCommand.Status("Prod_1"));
  }

  @Test
  void wrongArgumentCountsGiveTheUsageOfThatCommand() {
    assertThat(problem("upgrade prod-1"))
        .contains("usage: upgrade <cluster> <version>", "got 1 argument");
    assertThat(problem("upgrade prod-1 3.5.30 now"))
        .contains("usage: upgrade <cluster> <version>", "got 3 arguments");
    assertThat(problem("status")).contains("usage: status <cluster>");
    assertThat(problem("replace prod-1")).contains("usage: replace <cluster> <member>");
    assertThat(problem("approve")).contains("usage: approve <runbook id>");
    assertThat(problem("approve a b")).contains("usage: approve");
  }

  @Test
  void unknownVerbsAndArgumentsThatAreNoNamesAreInvalid() {
    assertThat(problem("restore prod-1")).contains("unknown command 'restore'");
    assertThat(problem("status &lt;!channel&gt;")).contains("is not a cluster");
    assertThat(problem("status ../etc")).contains("is not a cluster");
    assertThat(problem("approve change-prod-1/cancel"))
        .contains("is not a cluster, member, version or runbook id");
    assertThat(problem("status " + "x".repeat(200))).contains("...");
  }

  @Test
  void eachCommandNeedsTheRoleOfItsHttpApiCall() {
    assertThat(SlackCommand.parse("status prod-1").requiredRole()).isEqualTo(Role.VIEWER);
    assertThat(SlackCommand.parse("upgrade prod-1 3.5.30").requiredRole()).isEqualTo(Role.OPERATOR);
    assertThat(SlackCommand.parse("replace prod-1 m2").requiredRole()).isEqualTo(Role.OPERATOR);
    assertThat(SlackCommand.parse("approve change-prod-1").requiredRole()).isEqualTo(Role.OPERATOR);
    assertThat(SlackCommand.parse("help").requiredRole()).isEqualTo(Role.VIEWER);
  }

  @Test
  void usageNamesEveryCommandWithTheSlashCommandAsConfigured() {
    assertThat(SlackCommand.usage("/etcd-prod"))
        .contains(
            "/etcd-prod status <cluster>",
            "/etcd-prod upgrade <cluster> <version>",
            "/etcd-prod replace <cluster> <member>",
            "/etcd-prod approve <runbook id>");
  }

  @Test
  void theFormIsDecodedAsSlackEncodesIt() {
    SlackForm form =
        SlackForm.parse(
            ("token=x&team_id=T1&user_id=U024BE7LH&user_name=alice&command=%2Fetcd"
                    + "&text=upgrade+prod-1+3.5.30&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1%2F1%2Fabc&text=ignored")
                .getBytes(StandardCharsets.US_ASCII));
    assertThat(form)
        .isEqualTo(
            new SlackForm(
                "U024BE7LH",
                "alice",
                "/etcd",
                "upgrade prod-1 3.5.30",
                "https://hooks.slack.com/commands/T1/1/abc",
                ""));
    assertThat(
            SlackForm.parse("user_id=U1&command=not+a+command".getBytes(StandardCharsets.US_ASCII))
                .command())
        .isEqualTo("/etcd");
    assertThat(SlackForm.parse("user_id=U1".getBytes(StandardCharsets.US_ASCII)).text()).isEmpty();
  }

  @Test
  void aBodyThatIsNoSlashCommandIsRefused() {
    assertThatThrownBy(
            () -> SlackForm.parse("text=status+prod-1".getBytes(StandardCharsets.US_ASCII)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no user_id");
    assertThatThrownBy(
            () ->
                SlackForm.parse(
                    "user_id=U1&token=s3cr%ZZet&text=status".getBytes(StandardCharsets.US_ASCII)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not application/x-www-form-urlencoded")
        .hasMessageNotContaining("s3cr")
        .hasMessageNotContaining("ZZ");
    assertThatThrownBy(() -> SlackForm.parse(new byte[0]))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void progressIsPostedOnlyUnderTheResponseUrlPrefix() {
    String prefix = "https://hooks.slack.com/";
    assertThat(SlackResponseUrl.accept("https://hooks.slack.com/commands/T1/1/abc", prefix))
        .isPresent();
    assertThat(SlackResponseUrl.accept("https://hooks.slack.com.evil.example/commands", prefix))
        .isEmpty();
    assertThat(SlackResponseUrl.accept("http://hooks.slack.com/commands/T1/1/abc", prefix))
        .isEmpty();
    assertThat(SlackResponseUrl.accept("https://evil.example/https://hooks.slack.com/", prefix))
        .isEmpty();
    assertThat(SlackResponseUrl.accept("https://hooks.slack.com/commands/a b", prefix)).isEmpty();
    assertThat(SlackResponseUrl.accept("", prefix)).isEmpty();
    assertThat(SlackResponseUrl.accept(null, prefix)).isEmpty();
    assertThat(SlackResponseUrl.accept("http://127.0.0.1:8081/x", "http://127.0.0.1:8080/"))
        .isEmpty();
    assertThat(SlackResponseUrl.accept("http://127.0.0.1:8080/x", "http://127.0.0.1:8080/"))
        .isPresent();
  }

  private static String problem(String text) {
    SlackCommand command = SlackCommand.parse(text);
    assertThat(command).as(text).isInstanceOf(SlackCommand.Invalid.class);
    return ((SlackCommand.Invalid) command).problem();
  }
}
