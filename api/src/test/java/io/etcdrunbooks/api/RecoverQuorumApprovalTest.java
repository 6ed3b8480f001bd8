package io.etcdrunbooks.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.api.testing.ApiHarness;
import io.etcdrunbooks.api.testing.RawHttp.Answer;
import io.etcdrunbooks.api.testing.TestTokens;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Only an admin approves RecoverQuorum; with a second person asked for, not the one who started it.
 */
class RecoverQuorumApprovalTest {

  private static final String START = "/api/v1/clusters/sandbox/recover-quorum";
  private static final String APPROVE = "/api/v1/runbooks/change-sandbox/approve";

  @TempDir Path dir;

  @Test
  void anOperatorMayNotApproveItAndAnAdminMay() throws Exception {
    try (ApiHarness api = ApiHarness.start(dir, Map.of())) {
      Answer started =
          api.http.send("POST", START, TestTokens.ADMIN.bearer(), "{\"acknowledgeDataLoss\":true}");
      assertThat(started.status()).as(started.body()).isEqualTo(202);

      Answer byOperator = api.http.send("POST", APPROVE, TestTokens.OPERATOR.bearer(), "{}");
      assertThat(byOperator.status()).isEqualTo(403);
      assertThat(byOperator.body()).contains("only an admin approves RecoverQuorum");
      assertThat(progress(api)).doesNotContain("approve");

      Answer byAdmin = api.http.send("POST", APPROVE, TestTokens.ADMIN.bearer(), "{}");
      assertThat(byAdmin.status()).as(byAdmin.body()).isEqualTo(202);
      assertThat(progress(api)).contains("approve by sre-lead");
    }
  }

  @Test
  void withASecondPersonAskedForTheAdminWhoStartedItMayNotApproveIt() throws Exception {
    try (ApiHarness api =
        ApiHarness.start(dir, Map.of("runbooks.approvals.recover-quorum-second-person", true))) {
      assertThat(
              api.http
                  .send("POST", START, TestTokens.ADMIN.bearer(), "{\"acknowledgeDataLoss\":true}")
                  .status())
          .isEqualTo(202);

      Answer bySelf = api.http.send("POST", APPROVE, TestTokens.ADMIN.bearer(), "{}");

      assertThat(bySelf.status()).isEqualTo(403);
      assertThat(bySelf.body()).contains("needs a second person: sre-lead started it");
      assertThat(progress(api)).doesNotContain("approve");
    }
  }

  private static String progress(ApiHarness api) {
    return api.controls("change-sandbox");
  }
}
