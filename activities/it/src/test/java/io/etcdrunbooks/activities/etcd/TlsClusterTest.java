package io.etcdrunbooks.activities.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.testkit.LocalEtcdCluster;
import io.etcdrunbooks.testkit.TestCertificates;
import io.etcdrunbooks.testkit.TestKeys;
import io.etcdrunbooks.workflows.activities.EtcdActivities.KeyspaceDigestRequest;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Client TLS with a client certificate required, keys in the formats kubeadm (PKCS#1) and cfssl (SEC1 EC) write. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class TlsClusterTest {

  @TempDir Path dir;

  @ParameterizedTest(name = "EC client key: {0}")
  @ValueSource(booleans = {false, true})
  void discoverAndDigest_overTlsWithAClientCertificate_work(boolean ecClientKey) throws Exception {
    TestCertificates.Material certs = TestCertificates.write(dir.resolve("pki"), ecClientKey);
    try (LocalEtcdCluster cluster = LocalEtcdCluster.start(dir.resolve("cluster"), "secure", "3.5.30", 3, certs);
        EtcdClients clients = new EtcdClients(cluster.cluster())) {
      EtcdActivitiesImpl activities = new EtcdActivitiesImpl(cluster::inventory);
      long written = TestKeys.put(clients.cluster(), "/tls/", 10, "v");

      ClusterState state = activities.discover(new ClusterRef("secure"));
      assertThat(state.members()).allSatisfy(m -> assertThat(m.healthy()).as("%s", m).isTrue());
      assertThat(state.members()).filteredOn(MemberStatus::leads).hasSize(1);
      assertThat(state.clusterVersion()).isEqualTo("3.5.0");
      assertThat(activities.keyspaceDigest(new KeyspaceDigestRequest("secure", written)).keyCount()).isEqualTo(10);
    }
  }

  @Test
  void tlsMaterial_withoutTheKeyFile_failsNamingTheFileNotItsContents() throws Exception {
    TestCertificates.Material certs = TestCertificates.write(dir.resolve("pki"), false);
    Path notAKey = Files.copy(Path.of(certs.client().caFile()), dir.resolve("ca-as-key.pem"));
    Files.setPosixFilePermissions(notAKey, PosixFilePermissions.fromString("rw-------"));
    var spec = new io.etcdrunbooks.inventory.TlsSpec(certs.client().caFile(), certs.client().certFile(), notAKey.toString());
    assertThatThrownBy(() -> TlsMaterial.load(spec))
        .hasMessageContaining("no unencrypted PEM private key")
        .hasMessageContaining(notAKey.toString())
        .hasMessageNotContaining("BEGIN");
  }

  @Test
  void tlsMaterial_withAKeyFileOpenToItsGroupOrOthers_isRefusedNamingTheFileAndTheFix() throws Exception {
    TestCertificates.Material certs = TestCertificates.write(dir.resolve("pki"), false);
    Path key = Path.of(certs.client().keyFile());
    for (String[] open : new String[][] {{"rw-r-----", "0640", "its group may read it"}, {"rw-r--r--", "0644",
        "its group may read it and others may read it"}}) {
      Files.setPosixFilePermissions(key, PosixFilePermissions.fromString(open[0]));
      assertThatThrownBy(() -> TlsMaterial.load(certs.client()))
          .as(open[0])
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageEndingWith("the client key file (tls.keyFile) " + key + " has mode " + open[1] + ": " + open[2]
              + "; a secret file must be for its owner only (0600 or 0400): chmod 600 " + key)
          .hasMessageNotContaining("BEGIN");
    }
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
    assertThat(TlsMaterial.load(certs.client())).isNotNull();
  }
}
