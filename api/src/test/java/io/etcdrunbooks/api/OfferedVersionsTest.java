package io.etcdrunbooks.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.api.testing.ApiHarness;
import io.etcdrunbooks.api.testing.RawHttp.Answer;
import io.etcdrunbooks.api.testing.TestTokens;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API refuses a version the inventory's binary source does not offer, reading the source
 * through the same ReleaseActivities the worker's preflight calls; a source this process cannot
 * read leaves the decision to the preflight.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class OfferedVersionsTest {

  @TempDir Path dir;

  @Test
  void aVersionTheBinarySourceDoesNotOfferIsRefusedNamingTheOffered() throws Exception {
    ApiHarness.release(dir, "3.4.23");
    ApiHarness.release(dir, "3.5.30");
    try (ApiHarness api = ApiHarness.start(dir, Map.of())) {
      Answer refused = upgrade(api, "3.9.99");
      assertThat(refused.status()).as(refused.body()).isEqualTo(400);
      assertThat(refused.body())
          .contains("targetVersion 3.9.99 is not offered", "[3.4.23, 3.5.30]");

      Answer offered = upgrade(api, "3.5.30");
      assertThat(offered.status()).as(offered.body()).isEqualTo(202);
    }
  }

  @Test
  void aBinarySourceThisProcessCannotUseOnlySkipsTheCheck() throws Exception {
    Path inventory = ApiHarness.inventory(dir);
    // loads, but no release store can be made of it: a URL template needs a directory to unpack
    // into
    Files.writeString(
        inventory,
        Files.readString(inventory)
            .replaceFirst(
                "releases:\n  localDir: .*\n",
                "releases:\n  urlTemplate: https://releases.example/etcd-v{version}-linux-amd64.tar.gz\n"));
    try (ApiHarness api =
        ApiHarness.start(dir, Map.of("runbooks.inventory", inventory.toString()))) {
      Answer started = upgrade(api, "3.9.99");
      assertThat(started.status()).as(started.body()).isEqualTo(202);
    }
  }

  private static Answer upgrade(ApiHarness api, String version) throws Exception {
    return api.http.send(
        "POST",
        "/api/v1/clusters/sandbox/upgrade",
        TestTokens.OPERATOR.bearer(),
        "{\"targetVersion\":\"" + version + "\",\"dryRun\":true}");
  }
}
