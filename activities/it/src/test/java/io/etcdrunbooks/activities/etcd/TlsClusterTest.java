package io.etcdrunbooks.activities.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.TlsSpec;
import io.etcdrunbooks.testkit.EtcdSandboxExtension;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.TestCertificates;
import io.etcdrunbooks.testkit.TestKeys;
import io.etcdrunbooks.workflows.activities.EtcdActivities.KeyspaceDigestRequest;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Client TLS with a client certificate required, keys in the formats kubeadm (PKCS#1) and cfssl
 * (SEC1 EC) write.
 */
@RealEtcd
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TlsClusterTest {

  @RegisterExtension
  static final EtcdSandboxExtension etcd =
      EtcdSandboxExtension.builder().cluster("secure").members(3).version("3.5.30").tls().build();

  @TempDir Path dir;

  @ParameterizedTest(name = "EC client key: {0}")
  @ValueSource(booleans = {false, true})
  void discoverAndDigestOverTlsWithAClientCertificateWork(boolean ecClientKey) throws Exception {
    TlsSpec client = etcd.sandbox().certificates().orElseThrow().client(ecClientKey);
    Inventory inventory = withClientTls(etcd.inventory(), client);
    assertThat(inventory.cluster("secure").members())
        .allSatisfy(m -> assertThat(m.clientUrl()).startsWith("https://"));
    try (EtcdClients clients = new EtcdClients(inventory.cluster("secure"))) {
      EtcdActivitiesImpl activities =
          new EtcdActivitiesImpl(ClusterTargets.etcdOnly(() -> inventory));
      long written = TestKeys.put(clients.cluster(), "/tls/", 10, "v");

      ClusterState state = activities.discover(new ClusterRef("secure"));
      assertThat(state.members()).allSatisfy(m -> assertThat(m.healthy()).as("%s", m).isTrue());
      assertThat(state.members()).filteredOn(MemberStatus::leads).hasSize(1);
      assertThat(state.clusterVersion()).isEqualTo("3.5.0");
      assertThat(state.certificates().warningDays()).isEqualTo(14);
      assertThat(state.certificates().notAfterByMember())
          .containsOnlyKeys("m1", "m2", "m3")
          .allSatisfy(
              (member, notAfter) ->
                  assertThat(Instant.parse(notAfter))
                      .isBetween(
                          Instant.now().plus(TestCertificates.VALIDITY).minus(Duration.ofHours(2)),
                          Instant.now().plus(TestCertificates.VALIDITY)));
      assertThat(activities.keyspaceDigest(new KeyspaceDigestRequest("secure", written)).keyCount())
          .isEqualTo(10);
    }
  }

  @Test
  void tlsMaterialWithoutTheKeyFileFailsNamingTheFileNotItsContents() throws Exception {
    TestCertificates.Material certs = TestCertificates.write(dir.resolve("pki"));
    Path notAKey = Files.copy(Path.of(certs.rsaClient().caFile()), dir.resolve("ca-as-key.pem"));
    Files.setPosixFilePermissions(notAKey, PosixFilePermissions.fromString("rw-------"));
    var spec =
        new TlsSpec(certs.rsaClient().caFile(), certs.rsaClient().certFile(), notAKey.toString());
    assertThatThrownBy(() -> TlsMaterial.load(spec))
        .hasMessageContaining("no unencrypted PEM private key")
        .hasMessageContaining(notAKey.toString())
        .hasMessageNotContaining("BEGIN");
  }

  @Test
  void tlsMaterialWithAKeyFileOpenToItsGroupOrOthersIsRefusedNamingTheFileAndTheFix()
      throws Exception {
    TestCertificates.Material certs = TestCertificates.write(dir.resolve("pki"));
    Path key = Path.of(certs.rsaClient().keyFile());
    for (String[] open :
        new String[][] {
          {"rw-r-----", "0640", "its group may read it"},
          {"rw-r--r--", "0644", "its group may read it and others may read it"}
        }) {
      Files.setPosixFilePermissions(key, PosixFilePermissions.fromString(open[0]));
      assertThatThrownBy(() -> TlsMaterial.load(certs.rsaClient()))
          .as(open[0])
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageEndingWith(
              "the client key file (tls.keyFile) "
                  + key
                  + " has mode "
                  + open[1]
                  + ": "
                  + open[2]
                  + "; a secret file must be for its owner only (0600 or 0400): chmod 600 "
                  + key)
          .hasMessageNotContaining("BEGIN");
    }
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
    assertThat(TlsMaterial.load(certs.rsaClient())).isNotNull();
  }

  /**
   * The inventory with the cluster's client TLS files replaced, as an operator switching to another
   * client key would.
   */
  private static Inventory withClientTls(Inventory inventory, TlsSpec tls) {
    ClusterSpec c = inventory.cluster("secure");
    return new Inventory(
        inventory.releases(),
        Map.of(
            "secure",
            new ClusterSpec(
                c.name(),
                c.members(),
                c.service(),
                c.ssh(),
                tls,
                c.backupDir(),
                c.controlPlane(),
                c.backup())));
  }
}
