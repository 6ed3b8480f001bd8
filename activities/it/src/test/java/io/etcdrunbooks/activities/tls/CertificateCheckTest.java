package io.etcdrunbooks.activities.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.testkit.TestCertificates;
import io.etcdrunbooks.testkit.TestCertificates.Authority;
import io.etcdrunbooks.testkit.TestCertificates.Issued;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Certificates the TLS runbooks refuse before anything is touched (issue 13's test 3): a SAN that
 * misses the member's address, an expired one, a key that does not match, a chain that does not
 * reach the CA; and one that passes every check.
 */
class CertificateCheckTest {

  private static final List<String> M1 = List.of("127.0.0.11", "etcd-1.example");

  @TempDir Path dir;
  private Authority ca;
  private Instant now;

  @BeforeEach
  void authority() throws Exception {
    ca = TestCertificates.authority(dir.resolve("ca"), "cluster-ca");
    now = Instant.now();
  }

  @Test
  void aCertificateForTheMembersAddressesFromTheCaWithItsKeyPasses() throws Exception {
    Issued good = ca.issue("m1", M1, now, Duration.ofDays(365));

    assertThat(check(good.cert(), good.key(), ca.caFile())).isEmpty();
  }

  @Test
  void aMissingAddressIsNamedWithTheNamesTheCertificateHas() throws Exception {
    Issued narrow = ca.issue("m1", List.of("127.0.0.11"), now, Duration.ofDays(365));

    assertThat(check(narrow.cert(), narrow.key(), ca.caFile()))
        .singleElement()
        .asString()
        .contains("member m1", "does not cover etcd-1.example", "[127.0.0.11]");
  }

  @Test
  void anExpiredCertificateAndOneExpiringWithinTheWindowAreNamedWithTheirDates() throws Exception {
    Issued expired = ca.issue("old", M1, now.minus(Duration.ofDays(30)), Duration.ofDays(10));
    Issued soon = ca.issue("soon", M1, now, Duration.ofDays(3));

    assertThat(check(expired.cert(), expired.key(), ca.caFile()))
        .anySatisfy(p -> assertThat(p).contains("expired on"));
    assertThat(check(soon.cert(), soon.key(), ca.caFile()))
        .singleElement()
        .asString()
        .contains("in 2 days (within the 14-day window)");
  }

  @Test
  void aKeyOfAnotherCertificateIsRefusedWithoutShowingIt() throws Exception {
    Issued one = ca.issue("one", M1, now, Duration.ofDays(365));
    Issued other = ca.issue("other", M1, now, Duration.ofDays(365));

    List<String> problems = check(one.cert(), other.key(), ca.caFile());

    assertThat(problems)
        .singleElement()
        .asString()
        .contains("does not belong to its certificate")
        .doesNotContain(
            "PRIVATE", Files.readString(other.key()).lines().skip(1).findFirst().orElseThrow());
  }

  @Test
  void aCertificateOfAnotherCaIsRefusedNamingTheCaFile() throws Exception {
    Authority stranger = TestCertificates.authority(dir.resolve("stranger"), "another-ca");
    Issued foreign = stranger.issue("m1", M1, now, Duration.ofDays(365));

    assertThat(check(foreign.cert(), foreign.key(), ca.caFile()))
        .singleElement()
        .asString()
        .contains("does not chain to the CA in " + ca.caFile());
  }

  private List<String> check(Path cert, Path key, Path caFile) {
    return CertificateCheck.problems("m1", cert, key, caFile, M1, now, 14);
  }
}
