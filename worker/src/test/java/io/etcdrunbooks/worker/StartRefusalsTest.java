package io.etcdrunbooks.worker;

import static io.etcdrunbooks.api.testing.TestTokens.ADMIN;
import static io.etcdrunbooks.api.testing.TestTokens.OPERATOR;

import io.etcdrunbooks.api.testing.BadRequest;
import io.etcdrunbooks.api.testing.BadRequestCheck;
import io.etcdrunbooks.testkit.RealEtcd;
import java.nio.file.Path;
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
 * The starts the API refuses from the cluster as it is now, against a real worker+API over a real
 * 3-member sandbox running 3.5.16: each is answered 409 with a message that says what is wrong and
 * what to do, and none starts a workflow (see {@link BadRequestCheck}: this test's Temporal must
 * hold no execution at all after every request). The bad requests the API refuses from the request
 * alone are checked without etcd, in the api module's BadRequestsTest.
 */
@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StartRefusalsTest {

  /** Removed by JUnit after the class: the sandbox's etcd binaries and data take hundreds of MB. */
  @TempDir static Path classDir;

  private static final String C = "/api/v1/clusters/sandbox";
  private static final String JSON_TYPE = "application/json";

  private ApiSandbox env;
  private BadRequestCheck bad;

  @BeforeAll
  void start() throws Exception {
    env = ApiSandbox.start(classDir, "start-refusals", "3.5.16", Map.of(), OPERATOR, ADMIN);
    bad = new BadRequestCheck(env.api, env.client);
  }

  @AfterAll
  void stop() {
    if (env != null) env.close();
  }

  @TestFactory
  @Order(1)
  Stream<DynamicTest> whatThePreflightWouldRefuseIs409AndStartsNothing() {
    return cases().stream()
        .map(
            request ->
                DynamicTest.dynamicTest(
                    request.status() + " " + request.name(), () -> bad.check(request)));
  }

  /** What the runbook's preflight would refuse, answered from the cluster as it is now. */
  private List<BadRequest> cases() {
    List<BadRequest> c = new ArrayList<>();
    c.add(
        new BadRequest(
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
        new BadRequest(
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
        new BadRequest(
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
        new BadRequest(
            "a rollback past the cluster version without acknowledging the data loss",
            "POST",
            C + "/rollback",
            JSON_TYPE,
            "{\"toVersion\":\"3.4.23\"}",
            ADMIN.bearer(),
            409,
            "cluster version is already 3.5",
            "acknowledgeDataLoss"));
    return c;
  }

  /** Last: it takes a member down. */
  @Test
  @Order(2)
  void anUpgradeWithAMemberDownIs409NamingTheMemberAndStartsNothing() throws Exception {
    env.sandbox.kill("m3");
    bad.check(
        new BadRequest(
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
}
