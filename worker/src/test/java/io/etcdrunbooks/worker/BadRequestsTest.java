package io.etcdrunbooks.worker;

import static io.etcdrunbooks.api.testing.TestTokens.ADMIN;
import static io.etcdrunbooks.api.testing.TestTokens.OPERATOR;
import static io.etcdrunbooks.api.testing.TestTokens.STAGING;
import static io.etcdrunbooks.api.testing.TestTokens.VIEWER;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.api.testing.TestTokens;
import io.etcdrunbooks.testkit.RealEtcd;
import io.temporal.api.workflowservice.v1.ListClosedWorkflowExecutionsRequest;
import io.temporal.api.workflowservice.v1.ListOpenWorkflowExecutionsRequest;
import io.temporal.client.WorkflowClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad requests against a real worker+API over a real sandbox: each is answered with the right 4xx
 * and a message that names what is wrong, and none starts a workflow. "Nothing started" is read
 * from Temporal's own lists of open and closed executions, not from the API: this test's Temporal
 * must hold no execution at all after every request.
 */
@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BadRequestsTest {

  /** Removed by JUnit after the class: the sandbox's etcd binaries and data take hundreds of MB. */
  @TempDir static Path classDir;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NOT_A_TOKEN = "Bearer tok-" + java.util.UUID.randomUUID();
  private static final String C = "/api/v1/clusters/sandbox";
  private static final String JSON_TYPE = "application/json";
  private static final String FORM = "application/x-www-form-urlencoded";
  private static final String SLACK_SECRET = "slack-secret-" + java.util.UUID.randomUUID();
  private static final String SLACK_OPERATOR = "U0OPERATOR1";

  private ApiSandbox env;
  private WorkflowClient client;
  private String api;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeAll
  void start() throws Exception {
    Path secretFile = classDir.resolve("signing-secret");
    Files.createFile(
        secretFile,
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(secretFile, SLACK_SECRET + "\n");
    env =
        ApiSandbox.start(
            classDir,
            "bad-requests",
            "3.5.16",
            Map.of(
                "runbooks.slack.signing-secret-file",
                secretFile.toString(),
                "runbooks.slack.users." + SLACK_OPERATOR + ".role",
                "operator"),
            VIEWER,
            OPERATOR,
            ADMIN,
            STAGING);
    client = env.client;
    api = env.api;
  }

  @AfterAll
  void stop() {
    if (env != null) env.close();
  }

  /** One bad request: what is sent and what must come back. */
  record Bad(
      String name,
      String method,
      String path,
      String contentType,
      String body,
      String authorization,
      Map<String, String> headers,
      int status,
      String... words) {

    Bad(
        String name,
        String method,
        String path,
        String contentType,
        String body,
        String authorization,
        int status,
        String... words) {
      this(name, method, path, contentType, body, authorization, Map.of(), status, words);
    }

    /**
     * A slash command to /slack/commands with the given Slack signature headers (null: left out).
     */
    static Bad slack(
        String name,
        String contentType,
        String body,
        String timestamp,
        String signature,
        int status,
        String... words) {
      Map<String, String> headers = new java.util.HashMap<>();
      if (timestamp != null) headers.put("X-Slack-Request-Timestamp", timestamp);
      if (signature != null) headers.put("X-Slack-Signature", signature);
      return new Bad(
          name, "POST", "/slack/commands", contentType, body, null, headers, status, words);
    }
  }

  @TestFactory
  @Order(1)
  Stream<DynamicTest> everyBadRequestIsRefusedWithTheRightStatusAndMessageAndStartsNothing() {
    List<Bad> cases = cases();
    assertThat(cases).as("the issue asks for at least 50").hasSizeGreaterThanOrEqualTo(50);
    return cases.stream()
        .map(bad -> DynamicTest.dynamicTest(bad.status() + " " + bad.name(), () -> check(bad)));
  }

  private List<Bad> cases() {
    String upgrade = "{\"targetVersion\":\"3.5.30\"}";
    String big = "{\"targetVersion\":\"3.5.30\",\"padding\":\"" + "x".repeat(300 * 1024) + "\"}";
    List<Bad> c = new ArrayList<>();
    // no token, or one that is not in the tokens file
    c.add(
        new Bad(
            "upgrade without a token",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            upgrade,
            null,
            401,
            "missing 'Authorization: Bearer"));
    c.add(
        new Bad("status without a token", "GET", C + "/status", null, null, null, 401, "missing"));
    c.add(
        new Bad(
            "runbook list without a token",
            "GET",
            C + "/runbooks",
            null,
            null,
            null,
            401,
            "missing"));
    c.add(
        new Bad(
            "approve without a token",
            "POST",
            "/api/v1/runbooks/change-sandbox/approve",
            JSON_TYPE,
            "{}",
            null,
            401,
            "missing"));
    c.add(
        new Bad(
            "cancel without a token",
            "POST",
            "/api/v1/runbooks/change-sandbox/cancel",
            JSON_TYPE,
            "{}",
            null,
            401,
            "missing"));
    c.add(
        new Bad(
            "cluster list without a token",
            "GET",
            "/api/v1/clusters",
            null,
            null,
            null,
            401,
            "missing"));
    c.add(
        new Bad(
            "upgrade with an unknown token",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            upgrade,
            NOT_A_TOKEN,
            401,
            "not one of runbooks.api.tokens-file"));
    c.add(
        new Bad(
            "restore with an unknown token",
            "POST",
            C + "/restore",
            JSON_TYPE,
            "{\"acknowledgeDataLoss\":true}",
            NOT_A_TOKEN,
            401,
            "not one of"));
    c.add(
        new Bad(
            "a Basic instead of a Bearer token",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            upgrade,
            "Basic " + OPERATOR.secret(),
            401,
            "Bearer"));
    c.add(
        new Bad(
            "an empty Bearer token",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            upgrade,
            "Bearer ",
            401,
            "Bearer"));
    c.add(
        new Bad(
            "the token's hash sent as the token",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            upgrade,
            "Bearer " + TestTokens.sha256(OPERATOR.secret()),
            401,
            "not one of"));
    c.add(
        new Bad(
            "a token with a character changed",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            upgrade,
            OPERATOR.bearer().substring(0, OPERATOR.bearer().length() - 1) + "!",
            401,
            "not one of"));
    // a known token without the role, or not for this cluster
    c.add(
        new Bad(
            "a viewer's upgrade",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            upgrade,
            VIEWER.bearer(),
            403,
            "role viewer",
            "needs operator"));
    c.add(
        new Bad(
            "a viewer's replacement",
            "POST",
            C + "/replace-member",
            JSON_TYPE,
            "{\"failedMember\":\"m2\"}",
            VIEWER.bearer(),
            403,
            "needs operator"));
    c.add(
        new Bad(
            "a viewer's backup",
            "POST",
            C + "/backup",
            JSON_TYPE,
            "{}",
            VIEWER.bearer(),
            403,
            "needs operator"));
    c.add(
        new Bad(
            "a viewer's backup schedule",
            "POST",
            C + "/backup-schedule",
            JSON_TYPE,
            "{}",
            VIEWER.bearer(),
            403,
            "needs operator"));
    c.add(
        new Bad(
            "a viewer's approval",
            "POST",
            "/api/v1/runbooks/change-sandbox/approve",
            JSON_TYPE,
            "{}",
            VIEWER.bearer(),
            403,
            "needs operator"));
    c.add(
        new Bad(
            "a viewer's pause",
            "POST",
            "/api/v1/runbooks/change-sandbox/pause",
            JSON_TYPE,
            "{}",
            VIEWER.bearer(),
            403,
            "needs operator"));
    c.add(
        new Bad(
            "a viewer's resume",
            "POST",
            "/api/v1/runbooks/change-sandbox/resume",
            JSON_TYPE,
            "{}",
            VIEWER.bearer(),
            403,
            "needs operator"));
    c.add(
        new Bad(
            "a viewer's cancel",
            "POST",
            "/api/v1/runbooks/change-sandbox/cancel",
            JSON_TYPE,
            "{}",
            VIEWER.bearer(),
            403,
            "needs operator"));
    c.add(
        new Bad(
            "an operator's restore",
            "POST",
            C + "/restore",
            JSON_TYPE,
            "{\"acknowledgeDataLoss\":true}",
            OPERATOR.bearer(),
            403,
            "role operator",
            "needs admin"));
    c.add(
        new Bad(
            "an operator's rollback",
            "POST",
            C + "/rollback",
            JSON_TYPE,
            "{\"toVersion\":\"3.4.23\"}",
            OPERATOR.bearer(),
            403,
            "needs admin"));
    c.add(
        new Bad(
            "a staging-only token's upgrade",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            upgrade,
            STAGING.bearer(),
            403,
            "[staging-*]",
            "'sandbox'"));
    c.add(
        new Bad(
            "a staging-only token's status read",
            "GET",
            C + "/status",
            null,
            null,
            STAGING.bearer(),
            403,
            "'sandbox'"));
    c.add(
        new Bad(
            "a staging-only token's approval of a runbook it cannot place",
            "POST",
            "/api/v1/runbooks/change-sandbox/approve",
            JSON_TYPE,
            "{}",
            STAGING.bearer(),
            403,
            "cannot be told"));
    // bodies that are not the JSON the runbook takes
    c.add(
        new Bad(
            "truncated JSON",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":",
            OPERATOR.bearer(),
            400,
            "JSON"));
    c.add(
        new Bad(
            "not JSON at all",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "upgrade please",
            OPERATOR.bearer(),
            400,
            "JSON"));
    c.add(
        new Bad(
            "a JSON array instead of an object",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "[\"3.5.30\"]",
            OPERATOR.bearer(),
            400,
            "JSON body"));
    c.add(
        new Bad(
            "a misspelt field",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersoin\":\"3.5.30\"}",
            OPERATOR.bearer(),
            400,
            "targetVersoin"));
    c.add(
        new Bad(
            "an empty body",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "",
            OPERATOR.bearer(),
            400,
            "body"));
    c.add(
        new Bad(
            "an object where a name is expected",
            "POST",
            C + "/replace-member",
            JSON_TYPE,
            "{\"failedMember\":{\"name\":\"m2\"}}",
            OPERATOR.bearer(),
            400,
            "failedMember"));
    c.add(
        new Bad(
            "text where a number is expected",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":\"3.5.30\",\"memberTimeoutSeconds\":\"soon\"}",
            OPERATOR.bearer(),
            400,
            "memberTimeoutSeconds"));
    c.add(
        new Bad(
            "text where a boolean is expected",
            "POST",
            C + "/restore",
            JSON_TYPE,
            "{\"acknowledgeDataLoss\":\"maybe\"}",
            ADMIN.bearer(),
            400,
            "acknowledgeDataLoss"));
    // clusters and members the inventory does not have
    c.add(
        new Bad(
            "an upgrade of an unknown cluster",
            "POST",
            "/api/v1/clusters/nope/upgrade",
            JSON_TYPE,
            upgrade,
            OPERATOR.bearer(),
            404,
            "no cluster 'nope'",
            "[sandbox]"));
    c.add(
        new Bad(
            "a replacement in an unknown cluster",
            "POST",
            "/api/v1/clusters/nope/replace-member",
            JSON_TYPE,
            "{\"failedMember\":\"m1\"}",
            OPERATOR.bearer(),
            404,
            "no cluster 'nope'"));
    c.add(
        new Bad(
            "a restore of an unknown cluster",
            "POST",
            "/api/v1/clusters/nope/restore",
            JSON_TYPE,
            "{\"acknowledgeDataLoss\":true}",
            ADMIN.bearer(),
            404,
            "no cluster 'nope'"));
    c.add(
        new Bad(
            "a backup of an unknown cluster",
            "POST",
            "/api/v1/clusters/nope/backup",
            JSON_TYPE,
            "{}",
            OPERATOR.bearer(),
            404,
            "no cluster 'nope'"));
    c.add(
        new Bad(
            "the status of an unknown cluster",
            "GET",
            "/api/v1/clusters/nope/status",
            null,
            null,
            VIEWER.bearer(),
            404,
            "no cluster 'nope'"));
    c.add(
        new Bad(
            "the runbooks of an unknown cluster",
            "GET",
            "/api/v1/clusters/nope/runbooks",
            null,
            null,
            VIEWER.bearer(),
            404,
            "no cluster 'nope'"));
    c.add(
        new Bad(
            "a body naming another cluster than the path",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"cluster\":\"prod-1\",\"targetVersion\":\"3.5.30\"}",
            OPERATOR.bearer(),
            400,
            "'prod-1'",
            "'sandbox'"));
    c.add(
        new Bad(
            "a replacement of an unknown member",
            "POST",
            C + "/replace-member",
            JSON_TYPE,
            "{\"failedMember\":\"m9\"}",
            OPERATOR.bearer(),
            400,
            "no member 'm9'",
            "m1"));
    c.add(
        new Bad(
            "a replacement naming no member",
            "POST",
            C + "/replace-member",
            JSON_TYPE,
            "{}",
            OPERATOR.bearer(),
            400,
            "failedMember is required"));
    // versions
    c.add(
        new Bad(
            "a version the binary source does not offer",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":\"3.9.99\"}",
            OPERATOR.bearer(),
            400,
            "3.9.99 is not offered",
            "3.5.30"));
    c.add(
        new Bad(
            "a version that is not one",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":\"latest\"}",
            OPERATOR.bearer(),
            400,
            "must look like 3.5.30",
            "'latest'"));
    c.add(
        new Bad(
            "no version",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"dryRun\":true}",
            OPERATOR.bearer(),
            400,
            "targetVersion"));
    c.add(
        new Bad(
            "a rollback to a partial version",
            "POST",
            C + "/rollback",
            JSON_TYPE,
            "{\"toVersion\":\"3.4\"}",
            ADMIN.bearer(),
            400,
            "toVersion must look like"));
    c.add(
        new Bad(
            "a restore onto a version not offered",
            "POST",
            C + "/restore",
            JSON_TYPE,
            "{\"acknowledgeDataLoss\":true,\"etcdVersion\":\"3.6.0\"}",
            ADMIN.bearer(),
            400,
            "3.6.0 is not offered"));
    // other refusals before Temporal
    c.add(
        new Bad(
            "a negative member timeout",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":\"3.5.30\",\"memberTimeoutSeconds\":-1}",
            OPERATOR.bearer(),
            400,
            "memberTimeoutSeconds"));
    c.add(
        new Bad(
            "a restore without acknowledging the data loss",
            "POST",
            C + "/restore",
            JSON_TYPE,
            "{\"backupId\":\"latest\"}",
            ADMIN.bearer(),
            400,
            "acknowledgeDataLoss must be true"));
    c.add(
        new Bad(
            "a negative backup interval",
            "POST",
            C + "/backup-schedule",
            JSON_TYPE,
            "{\"intervalMinutes\":-5}",
            OPERATOR.bearer(),
            400,
            "intervalMinutes"));
    // size and content type
    c.add(
        new Bad(
            "an oversize upgrade body",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            big,
            OPERATOR.bearer(),
            413,
            "larger than micronaut.server.max-request-size"));
    c.add(
        new Bad(
            "an oversize Alertmanager payload",
            "POST",
            "/api/v1/alerts/alertmanager",
            JSON_TYPE,
            big,
            OPERATOR.bearer(),
            413,
            "larger than micronaut.server.max-request-size"));
    c.add(
        new Bad(
            "plain text instead of JSON",
            "POST",
            C + "/upgrade",
            "text/plain",
            upgrade,
            OPERATOR.bearer(),
            415,
            "takes a JSON body",
            "Content-Type: application/json"));
    c.add(
        new Bad(
            "XML instead of JSON",
            "POST",
            C + "/restore",
            "application/xml",
            "<restore/>",
            ADMIN.bearer(),
            415,
            "takes a JSON body",
            "Content-Type: application/json"));
    c.add(
        new Bad(
            "a form instead of JSON",
            "POST",
            C + "/replace-member",
            "application/x-www-form-urlencoded",
            "failedMember=m2",
            OPERATOR.bearer(),
            415,
            "takes a JSON body",
            "Content-Type: application/json"));
    // lenient JSON: each of these was taken as something else before (null as false: a real upgrade
    // instead of a dry run)
    c.add(
        new Bad(
            "dryRun null",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":\"3.5.30\",\"dryRun\":null}",
            OPERATOR.bearer(),
            400,
            "field 'dryRun' is null",
            "true or false"));
    c.add(
        new Bad(
            "dryRun as the string \"false\"",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":\"3.5.30\",\"dryRun\":\"false\"}",
            OPERATOR.bearer(),
            400,
            "field 'dryRun' must be true or false"));
    c.add(
        new Bad(
            "dryRun as the number 1",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":\"3.5.30\",\"dryRun\":1}",
            OPERATOR.bearer(),
            400,
            "field 'dryRun' must be true or false"));
    c.add(
        new Bad(
            "acknowledgeDataLoss as the string \"true\"",
            "POST",
            C + "/restore",
            JSON_TYPE,
            "{\"backupId\":\"latest\",\"acknowledgeDataLoss\":\"true\"}",
            ADMIN.bearer(),
            400,
            "field 'acknowledgeDataLoss' must be true or false"));
    c.add(
        new Bad(
            "a field given twice",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":\"3.5.30\",\"dryRun\":true,\"dryRun\":false}",
            OPERATOR.bearer(),
            400,
            "given twice",
            "dryRun"));
    c.add(
        new Bad(
            "the body in a one-element array",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "[{\"targetVersion\":\"3.5.30\",\"dryRun\":true}]",
            OPERATOR.bearer(),
            400,
            "the body must be a JSON object"));
    c.add(
        new Bad(
            "the version in a one-element array",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":[\"3.5.30\"]}",
            OPERATOR.bearer(),
            400,
            "field 'targetVersion' must be a string"));
    c.add(
        new Bad(
            "a decimal member timeout",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":\"3.5.30\",\"memberTimeoutSeconds\":1.9}",
            OPERATOR.bearer(),
            400,
            "field 'memberTimeoutSeconds' must be a whole number"));
    c.add(
        new Bad(
            "the version as a number",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":3.5}",
            OPERATOR.bearer(),
            400,
            "field 'targetVersion' must be a string"));
    c.add(
        new Bad(
            "an empty object",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{}",
            OPERATOR.bearer(),
            400,
            "targetVersion is required"));
    // what the runbook's preflight would refuse, answered from the cluster as it is now (3.5.16,
    // every member healthy)
    c.add(
        new Bad(
            "an upgrade to the version running",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":\"3.5.16\"}",
            OPERATOR.bearer(),
            409,
            "already runs 3.5.16",
            "nothing was started"));
    c.add(
        new Bad(
            "a downgrade through the upgrade runbook",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":\"3.4.23\"}",
            OPERATOR.bearer(),
            409,
            "3.4.23 is older than the running 3.5.16",
            "/rollback"));
    c.add(
        new Bad(
            "the replacement of a healthy member",
            "POST",
            C + "/replace-member",
            JSON_TYPE,
            "{\"failedMember\":\"m2\"}",
            OPERATOR.bearer(),
            409,
            "member m2 is healthy",
            "force"));
    c.add(
        new Bad(
            "a rollback past the cluster version without acknowledging the data loss",
            "POST",
            C + "/rollback",
            JSON_TYPE,
            "{\"toVersion\":\"3.4.23\"}",
            ADMIN.bearer(),
            409,
            "cluster version is already 3.5",
            "acknowledgeDataLoss"));
    c.add(
        new Bad(
            "a restore of a backup id that is a path",
            "POST",
            C + "/restore",
            JSON_TYPE,
            "{\"backupId\":\"../../etc/shadow\",\"acknowledgeDataLoss\":true}",
            ADMIN.bearer(),
            400,
            "backupId must be a backup id",
            "'../../etc/shadow'"));
    c.add(
        new Bad(
            "a rollback through a backup id that is a path",
            "POST",
            C + "/rollback",
            JSON_TYPE,
            "{\"toVersion\":\"3.4.23\",\"backupId\":\"../x\",\"acknowledgeDataLoss\":true}",
            ADMIN.bearer(),
            400,
            "backupId must be a backup id"));
    // answers the server makes itself have the API's shape
    c.add(
        new Bad(
            "a route that does not exist",
            "GET",
            "/api/v1/nothing-here",
            null,
            null,
            VIEWER.bearer(),
            404,
            "no such route",
            "/openapi.yaml"));
    c.add(
        new Bad(
            "a GET of a POST route",
            "GET",
            C + "/upgrade",
            null,
            null,
            OPERATOR.bearer(),
            405,
            "takes",
            "not GET"));
    // runbooks that do not exist
    c.add(
        new Bad(
            "approving a runbook that does not exist",
            "POST",
            "/api/v1/runbooks/no-such-runbook/approve",
            JSON_TYPE,
            "{}",
            OPERATOR.bearer(),
            404,
            "no runbook with id no-such-runbook"));
    c.add(
        new Bad(
            "cancelling a runbook that does not exist",
            "POST",
            "/api/v1/runbooks/no-such-runbook/cancel",
            JSON_TYPE,
            "{}",
            OPERATOR.bearer(),
            404,
            "no runbook with id no-such-runbook"));
    c.add(
        new Bad(
            "reading a runbook that does not exist",
            "GET",
            "/api/v1/runbooks/no-such-runbook",
            null,
            null,
            VIEWER.bearer(),
            404,
            "no runbook with id no-such-runbook"));
    // Slack: every check of the request signature, and the form's size and type, before any command
    // is read
    String command =
        "token=x&team_id=T1&user_id="
            + SLACK_OPERATOR
            + "&user_name=ops&command=%2Fetcd&text=upgrade+sandbox+3.5.30"
            + "&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2Fx";
    String now = String.valueOf(java.time.Instant.now().getEpochSecond());
    String old = String.valueOf(java.time.Instant.now().getEpochSecond() - 400);
    String ahead = String.valueOf(java.time.Instant.now().getEpochSecond() + 400);
    String flipped = command.replace("3.5.30", "3.5.31");
    c.add(
        Bad.slack(
            "a slash command without Slack's headers",
            FORM,
            command,
            null,
            null,
            401,
            "missing X-Slack-Request-Timestamp"));
    c.add(
        Bad.slack(
            "a slash command without a signature",
            FORM,
            command,
            now,
            null,
            401,
            "missing X-Slack-Signature"));
    c.add(
        Bad.slack(
            "a slash command signed with another secret",
            FORM,
            command,
            now,
            slackSignature("not-the-secret", now, command),
            401,
            "does not match"));
    c.add(
        Bad.slack(
            "a slash command whose body changed after signing",
            FORM,
            flipped,
            now,
            slackSignature(SLACK_SECRET, now, command),
            401,
            "does not match",
            "body was changed"));
    c.add(
        Bad.slack(
            "a replayed slash command, 400 s old",
            FORM,
            command,
            old,
            slackSignature(SLACK_SECRET, old, command),
            401,
            " s old",
            "more than 5 minutes"));
    c.add(
        Bad.slack(
            "a slash command dated 400 s ahead",
            FORM,
            command,
            ahead,
            slackSignature(SLACK_SECRET, ahead, command),
            401,
            "in the future"));
    c.add(
        Bad.slack(
            "a slash command signed for another timestamp",
            FORM,
            command,
            now,
            slackSignature(SLACK_SECRET, old, command),
            401,
            "does not match"));
    c.add(
        Bad.slack(
            "a slash command with a malformed signature",
            FORM,
            command,
            now,
            "v0=abc",
            401,
            "64 hex digits"));
    c.add(
        Bad.slack(
            "a slash command with a timestamp that is not one",
            FORM,
            command,
            "yesterday",
            slackSignature(SLACK_SECRET, "yesterday", command),
            401,
            "not a number"));
    c.add(
        Bad.slack(
            "a signed slash command sent as JSON",
            JSON_TYPE,
            command,
            now,
            slackSignature(SLACK_SECRET, now, command),
            415,
            "Content-Type must be application/x-www-form-urlencoded"));
    String padded = command + "&padding=" + "x".repeat(10 * 1024);
    c.add(
        Bad.slack(
            "an oversize slash command",
            FORM,
            padded,
            now,
            slackSignature(SLACK_SECRET, now, padded),
            413,
            "bytes"));
    return c;
  }

  /** Last: it takes a member down. */
  @Test
  @Order(2)
  void anUpgradeWithAMemberDownIs409NamingTheMemberAndStartsNothing() throws Exception {
    env.sandbox.kill("m3");
    check(
        new Bad(
            "an upgrade with a member down",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":\"3.5.30\"}",
            OPERATOR.bearer(),
            409,
            "member m3 is unreachable",
            "bring it back or replace it"));
  }

  /** Slack's signature, computed here rather than by the code under test. */
  private static String slackSignature(String secret, String timestamp, String body) {
    try {
      javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
      mac.init(
          new javax.crypto.spec.SecretKeySpec(
              secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return "v0="
          + java.util.HexFormat.of()
              .formatHex(
                  mac.doFinal(("v0:" + timestamp + ":" + body).getBytes(StandardCharsets.UTF_8)));
    } catch (java.security.GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private void check(Bad bad) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(api + bad.path()));
    if (bad.contentType() != null) request.header("Content-Type", bad.contentType());
    if (bad.authorization() != null) request.header("Authorization", bad.authorization());
    bad.headers().forEach(request::header);
    request.method(
        bad.method(),
        bad.body() == null
            ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(bad.body()));
    HttpResponse<String> response =
        http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    String message = messageOf(response.body());
    assertThat(response.statusCode())
        .as("%s: %s", bad.name(), response.body())
        .isEqualTo(bad.status());
    assertThat(message).as("%s: the answer's message", bad.name()).contains(bad.words());
    assertThat(message)
        .as("%s: no secret echoed", bad.name())
        .doesNotContain(OPERATOR.secret(), VIEWER.secret(), ADMIN.secret());
    assertThat(response.body())
        .as("%s: the API's own words and shape", bad.name())
        .doesNotContain(
            "UNWRAP_SINGLE_VALUE_ARRAYS",
            "StreamReadConstraints",
            "DeserializationFeature",
            "com.fasterxml",
            "io.etcdrunbooks.",
            "java.lang",
            "_embedded",
            "_links");
    assertThat(executionsInTemporal()).as("%s: workflows in Temporal", bad.name()).isEmpty();
  }

  /**
   * The answer's "message", and Micronaut's own error details when it answered before our code ran.
   */
  private static String messageOf(String body) {
    if (body == null || body.isBlank()) return "";
    try {
      JsonNode json = JSON.readTree(body);
      StringBuilder text = new StringBuilder(json.path("message").asText(""));
      for (JsonNode error : json.path("_embedded").path("errors"))
        text.append(" | ").append(error.path("message").asText(""));
      return text.toString();
    } catch (Exception e) {
      return body;
    }
  }

  private List<String> executionsInTemporal() {
    var stub = client.getWorkflowServiceStubs().blockingStub();
    String namespace = client.getOptions().getNamespace();
    List<String> ids = new ArrayList<>();
    stub.listOpenWorkflowExecutions(
            ListOpenWorkflowExecutionsRequest.newBuilder().setNamespace(namespace).build())
        .getExecutionsList()
        .forEach(e -> ids.add(e.getExecution().getWorkflowId()));
    stub.listClosedWorkflowExecutions(
            ListClosedWorkflowExecutionsRequest.newBuilder().setNamespace(namespace).build())
        .getExecutionsList()
        .forEach(e -> ids.add(e.getExecution().getWorkflowId()));
    return ids;
  }
}
