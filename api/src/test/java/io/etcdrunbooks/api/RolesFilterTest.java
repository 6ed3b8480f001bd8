package io.etcdrunbooks.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.api.testing.ApiHarness;
import io.etcdrunbooks.api.testing.RawHttp.Answer;
import io.etcdrunbooks.api.testing.TestTokens;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * In a process started without the api role, the API and the Slack endpoint answer 404 naming the
 * role, token or not.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class RolesFilterTest {

  @TempDir Path dir;

  @Test
  void aWorkerOnlyProcessServesNoApiRouteEvenToAnAdmin() throws Exception {
    try (ApiHarness api = ApiHarness.start(dir, Map.of("runbooks.roles", "worker"))) {
      Answer clusters = api.http.send("GET", "/api/v1/clusters", TestTokens.ADMIN.bearer(), null);
      assertThat(clusters.status()).as(clusters.body()).isEqualTo(404);
      assertThat(clusters.body()).contains("without the api role", "--roles=api");

      Answer slack = api.http.send("POST", "/slack/commands", null, "");
      assertThat(slack.status()).as(slack.body()).isEqualTo(404);
      assertThat(slack.body()).contains("without the api role");

      Answer click = api.http.send("POST", "/slack/interactions", null, "");
      assertThat(click.status()).as(click.body()).isEqualTo(404);
      assertThat(click.body()).contains("without the api role");
    }
  }

  @Test
  void withTheApiRoleTheApiAnswers() throws Exception {
    try (ApiHarness api = ApiHarness.start(dir, Map.of("runbooks.roles", "worker,api"))) {
      Answer clusters = api.http.send("GET", "/api/v1/clusters", TestTokens.ADMIN.bearer(), null);
      assertThat(clusters.status()).as(clusters.body()).isEqualTo(200);
      assertThat(clusters.body()).contains("sandbox", "staging-1");
    }
  }
}
