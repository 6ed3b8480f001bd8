package io.etcdrunbooks.workflows.phases;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.model.ServerCertificates;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CertificateExpiryTest {

  private static final Instant NOW = Instant.parse("2026-11-24T00:00:00Z");

  @Test
  void anExpiredCertificateAndOneWithinTheWindowAreNamedWithTheirDatesAndOneLaterIsNot() {
    ServerCertificates certificates =
        ServerCertificates.servedOnClientUrls(
            Map.of(
                "m1", "2026-11-20T00:00:00Z",
                "m2", "2026-12-01T00:00:00Z",
                "m3", "2027-11-24T00:00:00Z"),
            14);

    assertThat(CertificateExpiry.problems(certificates, NOW, ""))
        .containsExactlyInAnyOrder(
            "member m1's server certificate expired on 2026-11-20T00:00:00Z: clients that verify"
                + " it fail; renew it (ReconfigureTls, or by hand) before changing the cluster",
            "member m2's server certificate expires on 2026-12-01T00:00:00Z, in 7 days (within the"
                + " 14-day window, tls.expiryWarningDays): renew it first, or a member restarted"
                + " now may not come back once it expires");
  }

  @Test
  void theMemberBeingReplacedAndAClusterReachedOverHttpAreLeftOut() {
    ServerCertificates certificates =
        ServerCertificates.servedOnClientUrls(Map.of("m1", "2026-11-20T00:00:00Z"), 14);

    assertThat(CertificateExpiry.problems(certificates, NOW, "m1")).isEmpty();
    assertThat(CertificateExpiry.problems(null, NOW, "")).isEmpty();
  }

  @Test
  void theWindowIsTheInventorysNumberOfDays() {
    ServerCertificates certificates =
        ServerCertificates.servedOnClientUrls(Map.of("m1", "2027-02-01T00:00:00Z"), 90);

    assertThat(CertificateExpiry.problems(certificates, NOW, ""))
        .singleElement()
        .asString()
        .contains("in 69 days (within the 90-day window");
  }

  @Test
  void aPeerCertificateIsNamedAsSuchAndOnceWithTheServerCertificateWhenBothAreTheSame() {
    ServerCertificates certificates =
        new ServerCertificates(
            Map.of("m1", "2027-11-24T00:00:00Z", "m2", "2026-11-20T00:00:00Z"),
            14,
            Map.of("m1", "2026-12-01T00:00:00Z", "m2", "2026-11-20T00:00:00Z"));

    assertThat(CertificateExpiry.problems(certificates, NOW, ""))
        .containsExactlyInAnyOrder(
            "member m2's server and peer certificate expired on 2026-11-20T00:00:00Z: clients that"
                + " verify it fail; renew it (ReconfigureTls, or by hand) before changing the"
                + " cluster",
            "member m1's peer certificate expires on 2026-12-01T00:00:00Z, in 7 days (within the"
                + " 14-day window, tls.expiryWarningDays): renew it first, or a member restarted"
                + " now may not come back once it expires");
    assertThat(CertificateExpiry.problems(certificates, NOW, "m1")).hasSize(1);
  }
}
