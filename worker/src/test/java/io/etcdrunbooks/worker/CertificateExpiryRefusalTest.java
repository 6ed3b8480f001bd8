package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.inventory.TlsSpec;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.temporal.client.WorkflowFailedException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A TLS cluster whose members' server certificates (valid a year, read through real handshakes)
 * fall within the inventory's expiry window: the upgrade is refused before anything is touched,
 * naming each member and the date.
 */
@RealEtcd
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class CertificateExpiryRefusalTest {

  @TempDir Path dir;

  @Test
  void anUpgradeOfAClusterWhoseCertificatesExpireWithinTheWindowIsRefusedNamingEachMember()
      throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.startWithTls(dir, "3.4.23")) {
      windowOfDays(runbooks, 400);
      Map<String, Long> pidsBefore = runbooks.pids();

      assertThatThrownBy(
              () ->
                  runbooks
                      .upgradeStub()
                      .upgrade(UpgradeRequest.to("sandbox", "3.5.30", RunbookOptions.defaults())))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                assertThat(Failures.rootType(e)).isEqualTo(FailureType.PreflightRefused.name());
                assertThat(Failures.rootMessage(e))
                    .contains(
                        "refused, nothing was touched",
                        "member m1's server certificate expires on",
                        "member m2's server certificate expires on",
                        "member m3's server certificate expires on",
                        "within the 400-day window");
              });
      assertThat(runbooks.pids()).isEqualTo(pidsBefore);
      assertThat(runbooks.backups()).isEmpty();
    }
  }

  private static void windowOfDays(SandboxRunbooks runbooks, int days) {
    runbooks.editCluster(
        c -> c.withTls(new TlsSpec(c.tls().caFile(), c.tls().certFile(), c.tls().keyFile(), days)));
  }
}
