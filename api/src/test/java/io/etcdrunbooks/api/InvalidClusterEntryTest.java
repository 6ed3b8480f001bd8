package io.etcdrunbooks.api;

import static io.etcdrunbooks.api.testing.TestTokens.OPERATOR;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.api.testing.ApiHarness;
import io.etcdrunbooks.api.testing.RawHttp;
import io.temporal.client.WorkflowNotFoundException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One cluster whose inventory entry is invalid (a unit name with shell syntax, a control character
 * in a path) is refused by name with what is wrong, and starts nothing; the API starts and serves
 * the inventory's other clusters as before.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class InvalidClusterEntryTest {

  @TempDir static Path dir;

  private ApiHarness api;

  @BeforeAll
  void start() throws Exception {
    Path inventory = ApiHarness.inventory(dir);
    String sandbox = Files.readString(inventory);
    String entries = sandbox.substring(sandbox.indexOf("  sandbox:"));
    String shell =
        entries
            .substring(0, entries.indexOf("  staging-1:"))
            .replace("  sandbox:", "  shell:")
            .replace("{kind: plain}", "{kind: systemd, unit: 'etcd; reboot'}")
            .replace("sandbox-m1", "shell-m1");
    String control =
        shell
            .replace("  shell:", "  control:")
            .replace("{kind: systemd, unit: 'etcd; reboot'}", "{kind: plain}")
            .replace("dataDir: " + dir.resolve("shell-m1"), "dataDir: \"/var/lib/etcd\\u0007\"");
    Path withInvalid =
        Files.writeString(dir.resolve("inventory-with-invalid.yaml"), sandbox + shell + control);
    api = ApiHarness.start(dir, Map.of("runbooks.inventory", withInvalid.toString()));
  }

  @AfterAll
  void stop() {
    if (api != null) api.close();
  }

  @Test
  void theInvalidClustersAreRefusedWithTheirProblemAndStartNothing() throws Exception {
    RawHttp.Answer status =
        api.http.send("GET", "/api/v1/clusters/shell/status", OPERATOR.bearer(), null);
    assertThat(status.status()).as(status.body()).isEqualTo(409);
    assertThat(status.body())
        .contains("cluster 'shell' is refused: its inventory entry is invalid")
        .contains("service.unit must be a systemd unit name");

    RawHttp.Answer backup =
        api.http.send("POST", "/api/v1/clusters/control/backup", OPERATOR.bearer(), "{}");
    assertThat(backup.status()).as(backup.body()).isEqualTo(409);
    assertThat(backup.body())
        .contains("cluster 'control' member 'm1': dataDir must not contain control characters");
    assertThatThrownBy(() -> api.client.newUntypedWorkflowStub("backup-control").describe())
        .isInstanceOf(WorkflowNotFoundException.class);
  }

  @Test
  void theOtherClustersAreServed() throws Exception {
    RawHttp.Answer list = api.http.send("GET", "/api/v1/clusters", OPERATOR.bearer(), null);
    assertThat(list.body()).contains("sandbox", "staging-1").doesNotContain("shell");

    RawHttp.Answer backup =
        api.http.send("POST", "/api/v1/clusters/sandbox/backup", OPERATOR.bearer(), "{}");
    assertThat(backup.status()).as(backup.body()).isEqualTo(202);
  }
}
