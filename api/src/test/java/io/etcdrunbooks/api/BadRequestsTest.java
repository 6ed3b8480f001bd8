package io.etcdrunbooks.api;

import static io.etcdrunbooks.api.testing.TestTokens.ADMIN;
import static io.etcdrunbooks.api.testing.TestTokens.OPERATOR;
import static io.etcdrunbooks.api.testing.TestTokens.STAGING;
import static io.etcdrunbooks.api.testing.TestTokens.VIEWER;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.api.testing.ApiHarness;
import io.etcdrunbooks.api.testing.BadRequest;
import io.etcdrunbooks.api.testing.BadRequestCheck;
import io.etcdrunbooks.api.testing.TestTokens;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad requests the API refuses from the request alone (token, role, body, inventory, offered
 * versions, Slack signature): each is answered with the right 4xx and a message that names what is
 * wrong, and none starts a workflow in Temporal (see {@link BadRequestCheck}). The refusals that
 * depend on the cluster's state are checked against real etcd in the worker's StartRefusalsTest.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class BadRequestsTest {

  @TempDir static Path dir;

  private static final String NOT_A_TOKEN = "Bearer tok-" + UUID.randomUUID();
  private static final String C = "/api/v1/clusters/sandbox";
  private static final String JSON_TYPE = "application/json";
  private static final String FORM = "application/x-www-form-urlencoded";
  private static final String SLACK_SECRET = "slack-secret-" + UUID.randomUUID();
  private static final String SLACK_OPERATOR = "U0OPERATOR1";

  private ApiHarness api;
  private BadRequestCheck bad;

  @BeforeAll
  void start() throws Exception {
    Path secretFile = dir.resolve("signing-secret");
    Files.createFile(
        secretFile,
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(secretFile, SLACK_SECRET + "\n");
    // what the binary source offers (the inventory's releases.localDir): with no release there, the
    // API cannot tell what is offered and leaves it to the runbook's preflight, so the cases about
    // versions not offered would go on and start a runbook
    for (String version : List.of("3.4.23", "3.5.16", "3.5.30")) ApiHarness.release(dir, version);
    api =
        ApiHarness.start(
            dir,
            Map.of(
                "runbooks.slack.signing-secret-file",
                secretFile.toString(),
                "runbooks.slack.users." + SLACK_OPERATOR + ".role",
                "operator"));
    bad = new BadRequestCheck("http://127.0.0.1:" + api.server.getPort(), api.client);
  }

  @AfterAll
  void stop() {
    if (api != null) api.close();
  }

  @TestFactory
  Stream<DynamicTest> everyBadRequestIsRefusedWithTheRightStatusAndMessageAndStartsNothing() {
    List<BadRequest> cases = cases();
    assertThat(cases).as("the issue asks for at least 50").hasSizeGreaterThanOrEqualTo(50);
    return cases.stream()
        .map(
            request ->
                DynamicTest.dynamicTest(
                    request.status() + " " + request.name(), () -> bad.check(request)));
  }

  private List<BadRequest> cases() {
    String upgrade = "{\"targetVersion\":\"3.5.30\"}";
    String big = "{\"targetVersion\":\"3.5.30\",\"padding\":\"" + "x".repeat(300 * 1024) + "\"}";
    List<BadRequest> c = new ArrayList<>();
    // no token, or one that is not in the tokens file
    c.add(
        new BadRequest(
            "upgrade without a token",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            upgrade,
            null,
            401,
            "missing 'Authorization: Bearer"));
    c.add(
        new BadRequest(
            "status without a token", "GET", C + "/status", null, null, null, 401, "missing"));
    c.add(
        new BadRequest(
            "runbook list without a token",
            "GET",
            C + "/runbooks",
            null,
            null,
            null,
            401,
            "missing"));
    c.add(
        new BadRequest(
            "approve without a token",
            "POST",
            "/api/v1/runbooks/change-sandbox/approve",
            JSON_TYPE,
            "{}",
            null,
            401,
            "missing"));
    c.add(
        new BadRequest(
            "cancel without a token",
            "POST",
            "/api/v1/runbooks/change-sandbox/cancel",
            JSON_TYPE,
            "{}",
            null,
            401,
            "missing"));
    c.add(
        new BadRequest(
            "cluster list without a token",
            "GET",
            "/api/v1/clusters",
            null,
            null,
            null,
            401,
            "missing"));
    c.add(
        new BadRequest(
            "upgrade with an unknown token",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            upgrade,
            NOT_A_TOKEN,
            401,
            "not one of runbooks.api.tokens-file"));
    c.add(
        new BadRequest(
            "restore with an unknown token",
            "POST",
            C + "/restore",
            JSON_TYPE,
            "{\"acknowledgeDataLoss\":true}",
            NOT_A_TOKEN,
            401,
            "not one of"));
    c.add(
        new BadRequest(
            "a Basic instead of a Bearer token",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            upgrade,
            "Basic " + OPERATOR.secret(),
            401,
            "Bearer"));
    c.add(
        new BadRequest(
            "an empty Bearer token",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            upgrade,
            "Bearer ",
            401,
            "Bearer"));
    c.add(
        new BadRequest(
            "the token's hash sent as the token",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            upgrade,
            "Bearer " + TestTokens.sha256(OPERATOR.secret()),
            401,
            "not one of"));
    c.add(
        new BadRequest(
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
        new BadRequest(
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
        new BadRequest(
            "a viewer's replacement",
            "POST",
            C + "/replace-member",
            JSON_TYPE,
            "{\"failedMember\":\"m2\"}",
            VIEWER.bearer(),
            403,
            "needs operator"));
    c.add(
        new BadRequest(
            "a viewer's backup",
            "POST",
            C + "/backup",
            JSON_TYPE,
            "{}",
            VIEWER.bearer(),
            403,
            "needs operator"));
    c.add(
        new BadRequest(
            "a viewer's backup schedule",
            "POST",
            C + "/backup-schedule",
            JSON_TYPE,
            "{}",
            VIEWER.bearer(),
            403,
            "needs operator"));
    c.add(
        new BadRequest(
            "a viewer's approval",
            "POST",
            "/api/v1/runbooks/change-sandbox/approve",
            JSON_TYPE,
            "{}",
            VIEWER.bearer(),
            403,
            "needs operator"));
    c.add(
        new BadRequest(
            "a viewer's pause",
            "POST",
            "/api/v1/runbooks/change-sandbox/pause",
            JSON_TYPE,
            "{}",
            VIEWER.bearer(),
            403,
            "needs operator"));
    c.add(
        new BadRequest(
            "a viewer's resume",
            "POST",
            "/api/v1/runbooks/change-sandbox/resume",
            JSON_TYPE,
            "{}",
            VIEWER.bearer(),
            403,
            "needs operator"));
    c.add(
        new BadRequest(
            "a viewer's cancel",
            "POST",
            "/api/v1/runbooks/change-sandbox/cancel",
            JSON_TYPE,
            "{}",
            VIEWER.bearer(),
            403,
            "needs operator"));
    c.add(
        new BadRequest(
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
        new BadRequest(
            "an operator's rollback",
            "POST",
            C + "/rollback",
            JSON_TYPE,
            "{\"toVersion\":\"3.4.23\"}",
            OPERATOR.bearer(),
            403,
            "needs admin"));
    c.add(
        new BadRequest(
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
        new BadRequest(
            "a staging-only token's status read",
            "GET",
            C + "/status",
            null,
            null,
            STAGING.bearer(),
            403,
            "'sandbox'"));
    c.add(
        new BadRequest(
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
        new BadRequest(
            "truncated JSON",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":",
            OPERATOR.bearer(),
            400,
            "JSON"));
    c.add(
        new BadRequest(
            "not JSON at all",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "upgrade please",
            OPERATOR.bearer(),
            400,
            "JSON"));
    c.add(
        new BadRequest(
            "a JSON array instead of an object",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "[\"3.5.30\"]",
            OPERATOR.bearer(),
            400,
            "JSON body"));
    c.add(
        new BadRequest(
            "a misspelt field",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersoin\":\"3.5.30\"}",
            OPERATOR.bearer(),
            400,
            "targetVersoin"));
    c.add(
        new BadRequest(
            "an empty body",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "",
            OPERATOR.bearer(),
            400,
            "body"));
    c.add(
        new BadRequest(
            "an object where a name is expected",
            "POST",
            C + "/replace-member",
            JSON_TYPE,
            "{\"failedMember\":{\"name\":\"m2\"}}",
            OPERATOR.bearer(),
            400,
            "failedMember"));
    c.add(
        new BadRequest(
            "text where a number is expected",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":\"3.5.30\",\"memberTimeoutSeconds\":\"soon\"}",
            OPERATOR.bearer(),
            400,
            "memberTimeoutSeconds"));
    c.add(
        new BadRequest(
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
        new BadRequest(
            "an upgrade of an unknown cluster",
            "POST",
            "/api/v1/clusters/nope/upgrade",
            JSON_TYPE,
            upgrade,
            OPERATOR.bearer(),
            404,
            "no cluster 'nope'",
            "[sandbox, staging-1]"));
    c.add(
        new BadRequest(
            "a replacement in an unknown cluster",
            "POST",
            "/api/v1/clusters/nope/replace-member",
            JSON_TYPE,
            "{\"failedMember\":\"m1\"}",
            OPERATOR.bearer(),
            404,
            "no cluster 'nope'"));
    c.add(
        new BadRequest(
            "a restore of an unknown cluster",
            "POST",
            "/api/v1/clusters/nope/restore",
            JSON_TYPE,
            "{\"acknowledgeDataLoss\":true}",
            ADMIN.bearer(),
            404,
            "no cluster 'nope'"));
    c.add(
        new BadRequest(
            "a backup of an unknown cluster",
            "POST",
            "/api/v1/clusters/nope/backup",
            JSON_TYPE,
            "{}",
            OPERATOR.bearer(),
            404,
            "no cluster 'nope'"));
    c.add(
        new BadRequest(
            "the status of an unknown cluster",
            "GET",
            "/api/v1/clusters/nope/status",
            null,
            null,
            VIEWER.bearer(),
            404,
            "no cluster 'nope'"));
    c.add(
        new BadRequest(
            "the runbooks of an unknown cluster",
            "GET",
            "/api/v1/clusters/nope/runbooks",
            null,
            null,
            VIEWER.bearer(),
            404,
            "no cluster 'nope'"));
    c.add(
        new BadRequest(
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
        new BadRequest(
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
        new BadRequest(
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
        new BadRequest(
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
        new BadRequest(
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
        new BadRequest(
            "no version",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"dryRun\":true}",
            OPERATOR.bearer(),
            400,
            "targetVersion"));
    c.add(
        new BadRequest(
            "a rollback to a partial version",
            "POST",
            C + "/rollback",
            JSON_TYPE,
            "{\"toVersion\":\"3.4\"}",
            ADMIN.bearer(),
            400,
            "toVersion must look like"));
    c.add(
        new BadRequest(
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
        new BadRequest(
            "a negative member timeout",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":\"3.5.30\",\"memberTimeoutSeconds\":-1}",
            OPERATOR.bearer(),
            400,
            "memberTimeoutSeconds"));
    c.add(
        new BadRequest(
            "a restore without acknowledging the data loss",
            "POST",
            C + "/restore",
            JSON_TYPE,
            "{\"backupId\":\"latest\"}",
            ADMIN.bearer(),
            400,
            "acknowledgeDataLoss must be true"));
    c.add(
        new BadRequest(
            "a negative backup interval",
            "POST",
            C + "/backup-schedule",
            JSON_TYPE,
            "{\"intervalMinutes\":-5}",
            OPERATOR.bearer(),
            400,
            "intervalMinutes"));
    c.add(
        new BadRequest(
            "a backup interval other than the inventory's",
            "POST",
            C + "/backup-schedule",
            JSON_TYPE,
            "{\"intervalMinutes\":30}",
            OPERATOR.bearer(),
            409,
            "is the inventory's backup.intervalMinutes (60, its default), which every worker start"
                + " applies again: write backup.intervalMinutes: 30"));
    // size and content type
    c.add(
        new BadRequest(
            "an oversize upgrade body",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            big,
            OPERATOR.bearer(),
            413,
            "larger than micronaut.server.max-request-size"));
    c.add(
        new BadRequest(
            "an oversize Alertmanager payload",
            "POST",
            "/api/v1/alerts/alertmanager",
            JSON_TYPE,
            big,
            OPERATOR.bearer(),
            413,
            "larger than micronaut.server.max-request-size"));
    c.add(
        new BadRequest(
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
        new BadRequest(
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
        new BadRequest(
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
        new BadRequest(
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
        new BadRequest(
            "dryRun as the string \"false\"",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":\"3.5.30\",\"dryRun\":\"false\"}",
            OPERATOR.bearer(),
            400,
            "field 'dryRun' must be true or false"));
    c.add(
        new BadRequest(
            "dryRun as the number 1",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":\"3.5.30\",\"dryRun\":1}",
            OPERATOR.bearer(),
            400,
            "field 'dryRun' must be true or false"));
    c.add(
        new BadRequest(
            "acknowledgeDataLoss as the string \"true\"",
            "POST",
            C + "/restore",
            JSON_TYPE,
            "{\"backupId\":\"latest\",\"acknowledgeDataLoss\":\"true\"}",
            ADMIN.bearer(),
            400,
            "field 'acknowledgeDataLoss' must be true or false"));
    c.add(
        new BadRequest(
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
        new BadRequest(
            "the body in a one-element array",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "[{\"targetVersion\":\"3.5.30\",\"dryRun\":true}]",
            OPERATOR.bearer(),
            400,
            "the body must be a JSON object"));
    c.add(
        new BadRequest(
            "the version in a one-element array",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":[\"3.5.30\"]}",
            OPERATOR.bearer(),
            400,
            "field 'targetVersion' must be a string"));
    c.add(
        new BadRequest(
            "a decimal member timeout",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":\"3.5.30\",\"memberTimeoutSeconds\":1.9}",
            OPERATOR.bearer(),
            400,
            "field 'memberTimeoutSeconds' must be a whole number"));
    c.add(
        new BadRequest(
            "the version as a number",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{\"targetVersion\":3.5}",
            OPERATOR.bearer(),
            400,
            "field 'targetVersion' must be a string"));
    c.add(
        new BadRequest(
            "an empty object",
            "POST",
            C + "/upgrade",
            JSON_TYPE,
            "{}",
            OPERATOR.bearer(),
            400,
            "targetVersion is required"));
    // backup ids that are paths
    c.add(
        new BadRequest(
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
        new BadRequest(
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
        new BadRequest(
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
        new BadRequest(
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
        new BadRequest(
            "approving a runbook that does not exist",
            "POST",
            "/api/v1/runbooks/no-such-runbook/approve",
            JSON_TYPE,
            "{}",
            OPERATOR.bearer(),
            404,
            "no runbook with id no-such-runbook"));
    c.add(
        new BadRequest(
            "cancelling a runbook that does not exist",
            "POST",
            "/api/v1/runbooks/no-such-runbook/cancel",
            JSON_TYPE,
            "{}",
            OPERATOR.bearer(),
            404,
            "no runbook with id no-such-runbook"));
    c.add(
        new BadRequest(
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
        BadRequest.slack(
            "a slash command without Slack's headers",
            FORM,
            command,
            null,
            null,
            401,
            "missing X-Slack-Request-Timestamp"));
    c.add(
        BadRequest.slack(
            "a slash command without a signature",
            FORM,
            command,
            now,
            null,
            401,
            "missing X-Slack-Signature"));
    c.add(
        BadRequest.slack(
            "a slash command signed with another secret",
            FORM,
            command,
            now,
            BadRequestCheck.slackSignature("not-the-secret", now, command),
            401,
            "does not match"));
    c.add(
        BadRequest.slack(
            "a slash command whose body changed after signing",
            FORM,
            flipped,
            now,
            BadRequestCheck.slackSignature(SLACK_SECRET, now, command),
            401,
            "does not match",
            "body was changed"));
    c.add(
        BadRequest.slack(
            "a replayed slash command, 400 s old",
            FORM,
            command,
            old,
            BadRequestCheck.slackSignature(SLACK_SECRET, old, command),
            401,
            " s old",
            "more than 5 minutes"));
    c.add(
        BadRequest.slack(
            "a slash command dated 400 s ahead",
            FORM,
            command,
            ahead,
            BadRequestCheck.slackSignature(SLACK_SECRET, ahead, command),
            401,
            "in the future"));
    c.add(
        BadRequest.slack(
            "a slash command signed for another timestamp",
            FORM,
            command,
            now,
            BadRequestCheck.slackSignature(SLACK_SECRET, old, command),
            401,
            "does not match"));
    c.add(
        BadRequest.slack(
            "a slash command with a malformed signature",
            FORM,
            command,
            now,
            "v0=abc",
            401,
            "64 hex digits"));
    c.add(
        BadRequest.slack(
            "a slash command with a timestamp that is not one",
            FORM,
            command,
            "yesterday",
            BadRequestCheck.slackSignature(SLACK_SECRET, "yesterday", command),
            401,
            "not a number"));
    c.add(
        BadRequest.slack(
            "a signed slash command sent as JSON",
            JSON_TYPE,
            command,
            now,
            BadRequestCheck.slackSignature(SLACK_SECRET, now, command),
            415,
            "Content-Type must be application/x-www-form-urlencoded"));
    String padded = command + "&padding=" + "x".repeat(10 * 1024);
    c.add(
        BadRequest.slack(
            "an oversize slash command",
            FORM,
            padded,
            now,
            BadRequestCheck.slackSignature(SLACK_SECRET, now, padded),
            413,
            "bytes"));
    // Slack's button clicks: the same checks before the payload is read
    String click =
        "payload="
            + java.net.URLEncoder.encode(
                "{\"type\":\"block_actions\",\"user\":{\"id\":\""
                    + SLACK_OPERATOR
                    + "\"},\"actions\":[{\"action_id\":\"runbook-approve\","
                    + "\"value\":\"change-sandbox/0f0c5c2e-6b3a-4f7e-9d55-2b1f4c7a9e10\"}]}",
                java.nio.charset.StandardCharsets.UTF_8);
    c.add(
        BadRequest.slackClick(
            "a button click without Slack's headers",
            FORM,
            click,
            null,
            null,
            401,
            "missing X-Slack-Request-Timestamp"));
    c.add(
        BadRequest.slackClick(
            "a button click signed with another secret",
            FORM,
            click,
            now,
            BadRequestCheck.slackSignature("not-the-secret", now, click),
            401,
            "does not match"));
    c.add(
        BadRequest.slackClick(
            "a button click whose run was changed after signing",
            FORM,
            click.replace("9e10", "9e11"),
            now,
            BadRequestCheck.slackSignature(SLACK_SECRET, now, click),
            401,
            "does not match"));
    c.add(
        BadRequest.slackClick(
            "a replayed button click, 400 s old",
            FORM,
            click,
            old,
            BadRequestCheck.slackSignature(SLACK_SECRET, old, click),
            401,
            " s old"));
    c.add(
        BadRequest.slackClick(
            "a signed button click sent as JSON",
            JSON_TYPE,
            click,
            now,
            BadRequestCheck.slackSignature(SLACK_SECRET, now, click),
            415,
            "Content-Type must be application/x-www-form-urlencoded",
            "interaction payloads"));
    String clickPadded = click + "&padding=" + "x".repeat(70 * 1024);
    c.add(
        BadRequest.slackClick(
            "an oversize button click",
            FORM,
            clickPadded,
            now,
            BadRequestCheck.slackSignature(SLACK_SECRET, now, clickPadded),
            413,
            "at most 65536"));
    String notAClick = "payload=%7B%22type%22%3A%22view_submission%22%7D";
    c.add(
        BadRequest.slackClick(
            "a signed interaction that is no button click",
            FORM,
            notAClick,
            now,
            BadRequestCheck.slackSignature(SLACK_SECRET, now, notAClick),
            400,
            "only block_actions"));
    // Maintenance: one compaction target, none negative
    c.add(
        new BadRequest(
            "a maintenance with both a compaction revision and revisions to keep",
            "POST",
            C + "/maintenance",
            JSON_TYPE,
            "{\"compactRevision\":100,\"compactKeepRevisions\":10}",
            OPERATOR.bearer(),
            400,
            "give compactRevision or compactKeepRevisions, not both"));
    c.add(
        new BadRequest(
            "a maintenance asked by a viewer",
            "POST",
            C + "/maintenance",
            JSON_TYPE,
            "{\"dryRun\":true}",
            VIEWER.bearer(),
            403,
            "maintenance"));
    // RecoverQuorum: the data loss acknowledged, admin only
    c.add(
        new BadRequest(
            "a quorum recovery without acknowledgeDataLoss",
            "POST",
            C + "/recover-quorum",
            JSON_TYPE,
            "{\"confirmLossSeconds\":60}",
            ADMIN.bearer(),
            400,
            "acknowledgeDataLoss must be true"));
    c.add(
        new BadRequest(
            "a quorum recovery asked by an operator",
            "POST",
            C + "/recover-quorum",
            JSON_TYPE,
            "{\"acknowledgeDataLoss\":true,\"dryRun\":true}",
            OPERATOR.bearer(),
            403,
            "recover"));
    // ScaleCluster: an odd target of 3 or more, complete new members, admin only
    c.add(
        new BadRequest(
            "a scaling to an even size",
            "POST",
            C + "/scale",
            JSON_TYPE,
            "{\"targetSize\":4}",
            ADMIN.bearer(),
            400,
            "targetSize must be odd and at least 3, got 4"));
    c.add(
        new BadRequest(
            "a scaling with a new member without a host",
            "POST",
            C + "/scale",
            JSON_TYPE,
            "{\"targetSize\":5,\"newMembers\":[{\"name\":\"m4\",\"peerUrl\":\"http://10.0.0.4:2380\",\"clientUrl\":\"http://10.0.0.4:2379\"}]}",
            ADMIN.bearer(),
            400,
            "new member 'm4' needs a host"));
    c.add(
        new BadRequest(
            "a scaling asked by an operator",
            "POST",
            C + "/scale",
            JSON_TYPE,
            "{\"targetSize\":5,\"dryRun\":true}",
            OPERATOR.bearer(),
            403,
            "scale"));
    // what the inventory shows before anything starts: new members' count, URLs and SSH port
    int closed = closedPort();
    c.add(
        new BadRequest(
            "a scaling to 7 with two new members for a 1-member cluster",
            "POST",
            C + "/scale",
            JSON_TYPE,
            "{\"targetSize\":7,\"newMembers\":["
                + newMember("m4", "10.0.0.4", 22)
                + ","
                + newMember("m5", "10.0.0.5", 22)
                + "]}",
            ADMIN.bearer(),
            400,
            "growing from 1 to 7 members needs 6 new member(s) in newMembers, 2 given"));
    c.add(
        new BadRequest(
            "a scaling with a new member on the URLs of an inventory member",
            "POST",
            C + "/scale",
            JSON_TYPE,
            "{\"targetSize\":3,\"newMembers\":["
                + newMember("m4", "10.0.0.4", 22)
                + ",{\"name\":\"m5\",\"host\":\"10.0.0.5\",\"peerUrl\":\""
                + SANDBOX_M1_PEER_URL.get()
                + "\",\"clientUrl\":\"http://10.0.0.5:2379\"}]}",
            ADMIN.bearer(),
            400,
            "new member m5: URL " + SANDBOX_M1_PEER_URL.get() + " is already used by member 'm1'"));
    c.add(
        new BadRequest(
            "a scaling with new members on a host whose SSH port is closed",
            "POST",
            C + "/scale",
            JSON_TYPE,
            "{\"targetSize\":3,\"newMembers\":["
                + newMember("m4", "127.0.0.2", closed)
                + ","
                + newMember("m5", "127.0.0.3", closed)
                + "]}",
            ADMIN.bearer(),
            409,
            "new member m4: host 127.0.0.2 refuses connections on its SSH port " + closed,
            "new member m5",
            "nothing was started"));
    c.add(
        new BadRequest(
            "a replacement on a host whose SSH port is closed",
            "POST",
            C + "/replace-member",
            JSON_TYPE,
            "{\"failedMember\":\"m1\",\"replacement\":"
                + newMember("m1-new", "127.0.0.1", closed)
                + "}",
            OPERATOR.bearer(),
            409,
            "new member m1-new: host 127.0.0.1 refuses connections on its SSH port " + closed));
    c.add(
        new BadRequest(
            "a quorum recovery rebuilding a member the inventory does not have",
            "POST",
            C + "/recover-quorum",
            JSON_TYPE,
            "{\"acknowledgeDataLoss\":true,\"replacements\":{\"m7\":"
                + newMember("m7-new", "10.0.0.7", 22)
                + "}}",
            ADMIN.bearer(),
            400,
            "replacements names 'm7', which is not a member of the inventory [m1]"));
    c.add(
        new BadRequest(
            "a quorum recovery rebuilding a member on a host whose SSH port is closed",
            "POST",
            C + "/recover-quorum",
            JSON_TYPE,
            "{\"acknowledgeDataLoss\":true,\"replacements\":{\"m1\":"
                + newMember("m1-new", "127.0.0.1", closed)
                + "}}",
            ADMIN.bearer(),
            409,
            "new member m1-new: host 127.0.0.1 refuses connections on its SSH port " + closed));
    c.add(
        new BadRequest(
            "a maintenance schedule compacting history younger than its interval",
            "POST",
            C + "/maintenance-schedule",
            JSON_TYPE,
            "{\"intervalMinutes\":60,\"compactOlderThanMinutes\":30}",
            OPERATOR.bearer(),
            400,
            "compactOlderThanMinutes (30) must be at least intervalMinutes (60)"));
    c.add(
        new BadRequest(
            "a maintenance schedule compacting inside kube-apiserver's window, not forced",
            "POST",
            C + "/maintenance-schedule",
            JSON_TYPE,
            "{\"intervalMinutes\":5,\"compactOlderThanMinutes\":5}",
            OPERATOR.bearer(),
            400,
            "compactOlderThanMinutes (5) must be at least 10"));
    // FleetUpgrade
    c.add(
        new BadRequest(
            "a fleet upgrade to a version that is not major.minor.patch",
            "POST",
            "/api/v1/fleets/prod/upgrade",
            JSON_TYPE,
            "{\"selector\":\"*\",\"targetVersion\":\"3.5\"}",
            ADMIN.bearer(),
            400,
            "targetVersion '3.5' is not major.minor.patch"));
    c.add(
        new BadRequest(
            "a fleet upgrade whose selector selects nothing",
            "POST",
            "/api/v1/fleets/prod/upgrade",
            JSON_TYPE,
            "{\"selector\":\"env=nowhere\",\"targetVersion\":\"3.5.30\"}",
            ADMIN.bearer(),
            400,
            "selector 'env=nowhere' matches none of the inventory's clusters"));
    c.add(
        new BadRequest(
            "a fleet upgrade with a selector term that is not key=value",
            "POST",
            "/api/v1/fleets/prod/upgrade",
            JSON_TYPE,
            "{\"selector\":\"env\",\"targetVersion\":\"3.5.30\"}",
            ADMIN.bearer(),
            400,
            "selector term 'env' is not key=value"));
    c.add(
        new BadRequest(
            "a fleet upgrade by an operator",
            "POST",
            "/api/v1/fleets/prod/upgrade",
            JSON_TYPE,
            "{\"selector\":\"*\",\"targetVersion\":\"3.5.30\"}",
            OPERATOR.bearer(),
            403,
            "needs admin"));
    // ReconfigureTls: modes and their settings
    c.add(
        new BadRequest(
            "a TLS reconfiguration in a mode there is not",
            "POST",
            C + "/reconfigure-tls",
            JSON_TYPE,
            "{\"mode\":\"rotate-everything\",\"certificatesDir\":\"/tmp/c\"}",
            ADMIN.bearer(),
            400,
            "mode must be rotate-certificates, enable or rotate-ca",
            "rotate-everything"));
    c.add(
        new BadRequest(
            "a CA rotation without the new CA",
            "POST",
            C + "/reconfigure-tls",
            JSON_TYPE,
            "{\"mode\":\"rotate-ca\",\"caKeyFile\":\"/tmp/new-ca.key\"}",
            ADMIN.bearer(),
            400,
            "mode rotate-ca needs"));
    c.add(
        new BadRequest(
            "enabling TLS without its settings",
            "POST",
            C + "/reconfigure-tls",
            JSON_TYPE,
            "{\"mode\":\"enable\",\"certificatesDir\":\"/tmp/c\"}",
            ADMIN.bearer(),
            400,
            "mode enable needs \"enable\""));
    c.add(
        new BadRequest(
            "enable settings given to a rotation",
            "POST",
            C + "/reconfigure-tls",
            JSON_TYPE,
            "{\"mode\":\"rotate-certificates\",\"certificatesDir\":\"/tmp/c\","
                + "\"enable\":{\"caFile\":\"/tmp/ca.crt\"}}",
            ADMIN.bearer(),
            400,
            "only for mode enable"));
    c.add(
        new BadRequest(
            "enable settings with a field of another name",
            "POST",
            C + "/reconfigure-tls",
            JSON_TYPE,
            "{\"mode\":\"enable\",\"certificatesDir\":\"/tmp/c\","
                + "\"enable\":{\"caFiles\":\"/tmp/ca.crt\"}}",
            ADMIN.bearer(),
            400,
            "caFiles"));
    return c;
  }

  /** A new member's placement as JSON, its URLs on {@code host}. */
  private static String newMember(String name, String host, int sshPort) {
    return ("{\"name\":\"%s\",\"host\":\"%s\",\"sshPort\":%d,\"peerUrl\":\"http://%s:2380\","
            + "\"clientUrl\":\"http://%s:2379\"}")
        .formatted(name, host, sshPort, host, host);
  }

  /** A port nothing listens on: a connection to it is refused at once. */
  private static int closedPort() {
    try {
      return ApiHarness.freePort();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** The peer URL of cluster sandbox's member m1, as the harness's inventory has it. */
  private static final java.util.function.Supplier<String> SANDBOX_M1_PEER_URL =
      () -> {
        try {
          String inventory = Files.readString(dir.resolve("inventory.yaml"));
          int at = inventory.indexOf("peerUrl: '", inventory.indexOf("  sandbox:"));
          return inventory.substring(at + 10, inventory.indexOf('\'', at + 10));
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      };
}
