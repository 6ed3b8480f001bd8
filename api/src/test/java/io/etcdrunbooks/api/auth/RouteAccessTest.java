package io.etcdrunbooks.api.auth;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.api.testing.ApiHarness;
import io.etcdrunbooks.api.testing.RawHttp.Answer;
import io.etcdrunbooks.api.testing.TestTokens;
import io.etcdrunbooks.api.testing.TestTokens.Token;
import io.etcdrunbooks.runtime.http.OwnAuthentication;
import io.etcdrunbooks.workflows.RunbookCatalog;
import io.etcdrunbooks.workflows.RunbookDefinition;
import io.etcdrunbooks.workflows.common.Progress;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.micronaut.web.router.Router;
import io.micronaut.web.router.UriRouteInfo;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Access is decided from the route Micronaut matched, so no spelling of a path reaches a route past
 * its rule: every /api/v1 route, spelt with trailing and doubled slashes, encoded characters, dot
 * segments, other letter case and matrix parameters, for every role and a token limited to staging
 * clusters.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RouteAccessTest {

  @TempDir static Path dir;

  private static final String RUNBOOK = "change-sandbox";
  private static final String STAGING_RUNBOOK = "change-staging-1";

  /**
   * Every /api/v1 route that takes a token, as action and canonical path to the sandbox cluster.
   */
  private static final List<Route> ROUTES =
      List.of(
          new Route(ApiAction.CLUSTER_STATUS, "GET", "/api/v1/clusters/sandbox/status", null),
          new Route(ApiAction.LIST_RUNBOOKS, "GET", "/api/v1/clusters/sandbox/runbooks", null),
          new Route(
              ApiAction.UPGRADE,
              "POST",
              "/api/v1/clusters/sandbox/upgrade",
              "{\"targetVersion\":\"3.5.30\",\"dryRun\":true}"),
          new Route(
              ApiAction.ROLLBACK, "POST", "/api/v1/clusters/sandbox/rollback", "{\"dryRun\":true}"),
          new Route(
              ApiAction.DOWNGRADE,
              "POST",
              "/api/v1/clusters/sandbox/downgrade",
              "{\"toVersion\":\"3.5.30\",\"dryRun\":true}"),
          new Route(
              ApiAction.RESTORE, "POST", "/api/v1/clusters/sandbox/restore", "{\"dryRun\":true}"),
          new Route(
              ApiAction.MIGRATE_V2_TO_V3,
              "POST",
              "/api/v1/clusters/sandbox/migrate-v2-to-v3",
              "{\"dryRun\":true}"),
          new Route(
              ApiAction.RECOVER_QUORUM,
              "POST",
              "/api/v1/clusters/sandbox/recover-quorum",
              "{\"acknowledgeDataLoss\":true,\"dryRun\":true}"),
          new Route(
              ApiAction.SCALE,
              "POST",
              "/api/v1/clusters/sandbox/scale",
              "{\"targetSize\":3,\"dryRun\":true}"),
          new Route(
              ApiAction.MAINTENANCE,
              "POST",
              "/api/v1/clusters/sandbox/maintenance",
              "{\"compactKeepRevisions\":1000,\"dryRun\":true}"),
          new Route(
              ApiAction.RECONFIGURE_TLS,
              "POST",
              "/api/v1/clusters/sandbox/reconfigure-tls",
              "{\"mode\":\"rotate-certificates\",\"certificatesDir\":\"/tmp/c\",\"dryRun\":true}"),
          new Route(
              ApiAction.REPLACE_MEMBER,
              "POST",
              "/api/v1/clusters/sandbox/replace-member",
              "{\"failedMember\":\"m1\",\"dryRun\":true}"),
          new Route(ApiAction.BACKUP, "POST", "/api/v1/clusters/sandbox/backup", "{}"),
          new Route(
              ApiAction.MAINTENANCE_SCHEDULE,
              "POST",
              "/api/v1/clusters/sandbox/maintenance-schedule",
              "{\"intervalMinutes\":60}"),
          new Route(
              ApiAction.BACKUP_SCHEDULE, "POST", "/api/v1/clusters/sandbox/backup-schedule", "{}"),
          new Route(
              ApiAction.RESTORE_DRILL, "POST", "/api/v1/clusters/sandbox/restore-drill", "{}"),
          new Route(
              ApiAction.FLEET_UPGRADE,
              "POST",
              "/api/v1/fleets/everything/upgrade",
              "{\"selector\":\"*\",\"targetVersion\":\"3.5.30\"}"),
          new Route(ApiAction.READ_FLEET, "GET", "/api/v1/fleets/everything", null),
          new Route(ApiAction.READ_RUNBOOK, "GET", "/api/v1/runbooks/" + RUNBOOK, null),
          new Route(ApiAction.APPROVE, "POST", "/api/v1/runbooks/" + RUNBOOK + "/approve", "{}"),
          new Route(ApiAction.PAUSE, "POST", "/api/v1/runbooks/" + RUNBOOK + "/pause", "{}"),
          new Route(ApiAction.RESUME, "POST", "/api/v1/runbooks/" + RUNBOOK + "/resume", "{}"),
          new Route(ApiAction.CANCEL, "POST", "/api/v1/runbooks/" + RUNBOOK + "/cancel", "{}"),
          new Route(ApiAction.CODEC, "POST", "/api/v1/codec/encode", "{\"payloads\":[]}"),
          new Route(ApiAction.CODEC, "POST", "/api/v1/codec/decode", "{\"payloads\":[]}"));

  record Route(ApiAction action, String method, String path, String body) {}

  private ApiHarness api;

  @BeforeAll
  void start() throws Exception {
    api = ApiHarness.start(dir, Map.of());
    for (String cluster : List.of("sandbox", "staging-1")) {
      UpgradeClusterWorkflow upgrade =
          api.client.newWorkflowStub(
              UpgradeClusterWorkflow.class,
              WorkflowOptions.newBuilder()
                  .setWorkflowId("change-" + cluster)
                  .setTaskQueue(ApiHarness.TASK_QUEUE)
                  .build());
      WorkflowClient.start(
          upgrade::upgrade,
          UpgradeRequest.to(cluster, "3.5.30", RunbookOptions.defaults().withApproval()));
    }
  }

  @AfterAll
  void stop() {
    if (api != null) api.close();
  }

  @Test
  void everyApiRouteHasAnAccessRuleOrItsOwnAuthentication() {
    List<String> unruled = new ArrayList<>();
    for (UriRouteInfo<?, ?> route : api.context.getBean(Router.class).uriRoutes().toList()) {
      boolean ruled =
          route.getAnnotationMetadata().hasAnnotation(Access.class)
              || route.getAnnotationMetadata().hasAnnotation(OwnAuthentication.class);
      if (!ruled) unruled.add(route.getHttpMethod() + " " + route.getUriMatchTemplate());
    }
    assertThat(unruled).as("routes without @Access or @OwnAuthentication").isEmpty();
    Set<ApiAction> used = new LinkedHashSet<>();
    ROUTES.forEach(r -> used.add(r.action()));
    used.add(ApiAction.LIST_CLUSTERS);
    assertThat(used)
        .as("this test covers every action")
        .containsExactlyInAnyOrder(ApiAction.values());
  }

  /** A runbook the catalog lists but the API cannot start fails here. */
  @Test
  void everyRunbookOfTheCatalogIsStartedAtItsPathWithItsRequestAsTheBody() {
    List<UriRouteInfo<?, ?>> routes = api.context.getBean(Router.class).uriRoutes().toList();
    for (RunbookDefinition<?> runbook : RunbookCatalog.all()) {
      String path =
          runbook.target() == RunbookDefinition.Target.FLEET
              ? "/api/v1/fleets/{fleet}/" + runbook.path()
              : "/api/v1/clusters/{cluster}/" + runbook.path();
      List<UriRouteInfo<?, ?>> starting =
          routes.stream()
              .filter(r -> r.getHttpMethodName().equals("POST"))
              .filter(r -> r.getUriMatchTemplate().toPathString().equals(path))
              .toList();
      // Micronaut lists a route once per way it is matched: every one must be the runbook's
      assertThat(starting).as("POST %s starts %s", path, runbook).isNotEmpty();
      for (UriRouteInfo<?, ?> route : starting) {
        assertThat(route.getAnnotationMetadata().enumValue(Access.class, ApiAction.class))
            .as("POST %s: its access rule is the action that starts %s", path, runbook)
            .contains(ApiAction.starting(runbook));
        assertThat(route.getRequestBodyType().<Object>map(a -> a.getType()))
            .as("POST %s: its body is %s's request", path, runbook)
            .contains(runbook.request());
      }
    }
  }

  @Test
  void aTokenLimitedToStagingReachesNoRouteOfAnotherClusterHoweverThePathIsSpelt()
      throws Exception {
    List<String> leaks = new ArrayList<>();
    int sent = 0;
    for (Route route : ROUTES) {
      for (String target : spellings(route.path())) {
        Answer answer =
            api.http.send(route.method(), target, TestTokens.STAGING.bearer(), route.body());
        sent++;
        if (answer.status() < 400 || answer.status() >= 500) {
          leaks.add(route.method() + " " + target + " -> " + answer.status() + " " + answer.body());
        }
      }
    }
    assertThat(leaks)
        .as("answers other than a refusal or 404/405, of " + sent + " requests")
        .isEmpty();
    assertThat(sent).isGreaterThan(ROUTES.size() * 15);
    Progress sandbox = api.client.newWorkflowStub(UpgradeClusterWorkflow.class, RUNBOOK).progress();
    assertThat(sandbox.message())
        .as("signals the sandbox runbook got")
        .doesNotContain(TestTokens.STAGING.name());
    assertThat(api.client.newUntypedWorkflowStub(RUNBOOK).describe().getStatus().name())
        .endsWith("RUNNING");
  }

  @Test
  void theTrailingSlashOfTheReportIsRefusedAndTheSameRouteWorksOnTheTokensOwnCluster()
      throws Exception {
    Answer refused =
        api.http.send(
            "POST", "/api/v1/runbooks/" + RUNBOOK + "/approve/", TestTokens.STAGING.bearer(), "{}");
    assertThat(refused.status()).as(refused.body()).isEqualTo(403);
    assertThat(refused.body()).contains("not on 'sandbox'");
    Answer own =
        api.http.send(
            "POST",
            "/api/v1/runbooks/" + STAGING_RUNBOOK + "/pause/",
            TestTokens.STAGING.bearer(),
            "{}");
    assertThat(own.status()).as(own.body()).isEqualTo(202);
    Answer decode =
        api.http.send(
            "POST", "/api/v1/codec/decode/", TestTokens.STAGING.bearer(), "{\"payloads\":[]}");
    assertThat(decode.status()).as(decode.body()).isEqualTo(403);
    assertThat(decode.body()).contains("needs a token for every cluster");
  }

  @Test
  void eachRoleGetsWhatItsRuleGivesOnEverySpellingThatReachesTheRoute() throws Exception {
    List<String> wrong = new ArrayList<>();
    for (Token token : List.of(TestTokens.VIEWER, TestTokens.OPERATOR, TestTokens.ADMIN)) {
      for (Route route : ROUTES) {
        if (route.action() == ApiAction.CANCEL || route.action() == ApiAction.APPROVE)
          continue; // they end the runbook
        boolean allowed = Role.valueOf(token.role().toUpperCase()).atLeast(route.action().role());
        for (String target : spellings(route.path())) {
          Answer answer = api.http.send(route.method(), target, token.bearer(), route.body());
          boolean refused = answer.status() == 401 || answer.status() == 403;
          boolean notRouted =
              answer.status() == 404 || answer.status() == 405 || answer.status() == 400;
          if (allowed ? refused : !(refused || notRouted)) {
            wrong.add(
                token.name()
                    + " "
                    + route.method()
                    + " "
                    + target
                    + " -> "
                    + answer.status()
                    + " "
                    + answer.body());
          }
        }
      }
    }
    assertThat(wrong).isEmpty();
  }

  @Test
  void withoutATokenEverySpellingIs401() throws Exception {
    List<String> wrong = new ArrayList<>();
    for (Route route : ROUTES) {
      for (String target : spellings(route.path())) {
        Answer answer = api.http.send(route.method(), target, null, route.body());
        if (answer.status() != 401
            && answer.status() != 404
            && answer.status() != 405
            && answer.status() != 400) {
          wrong.add(route.method() + " " + target + " -> " + answer.status() + " " + answer.body());
        }
      }
    }
    assertThat(wrong).isEmpty();
  }

  /** The path as an attacker would spell it to slip past a rule that matches text. */
  static List<String> spellings(String path) {
    String[] parts = path.substring(1).split("/");
    String last = parts[parts.length - 1];
    List<String> out =
        new ArrayList<>(
            List.of(
                path,
                path + "/",
                path + "//",
                "/" + path,
                path.replace("/api/v1/", "/api/v1//"),
                path.replace("/api/v1/", "/api//v1/"),
                path.replace("/api/v1/", "/api/v1/./"),
                path.replace("/api/v1/", "/api/v1/x/../"),
                path.replace("/api/v1/", "/api/v1/%2e/"),
                path.replace("/api/v1/", "/api/v1/x/%2e%2e/"),
                path.replace("/api/v1/", "/API/V1/"),
                path.replace("/api/v1/", "/Api/v1/"),
                path.substring(0, path.length() - last.length()) + last.toUpperCase(),
                path + ";x=1",
                path + "/;x=1",
                path.replace("/api/v1/", "/api;x=1/v1/"),
                path + "?cluster=staging-1",
                path + "%2F",
                path + "%20",
                path + "#",
                path.replace("sandbox", "sand%62ox"),
                path.replace("sandbox", "staging-1/../sandbox"),
                path.replace("sandbox", "staging-1%2F..%2Fsandbox"),
                path.replace("sandbox", "sandbox;cluster=staging-1"),
                path.replace("sandbox", "SANDBOX")));
    if (parts.length > 4) {
      // the action's slash encoded, so that the route sees one variable holding "<id>/approve"
      out.add(path.substring(0, path.length() - last.length() - 1) + "%2F" + last);
      out.add(path.substring(0, path.length() - last.length() - 1) + "%2f" + last + "/");
    }
    return out.stream().distinct().toList();
  }
}
