package io.etcdrunbooks.activities.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.EtcdAuthSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.testkit.EtcdReleases;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.ConsistencyReport;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 3.4.23 cluster with authentication on (a root user, {@code auth enable}): the inventory's
 * credentials make it discoverable; without them discovery says what is missing.
 */
@RealEtcd
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class AuthClusterTest {

  @TempDir static Path dir;
  private final String password = "pw-" + UUID.randomUUID();
  private Sandbox sandbox;
  private Path passwordFile;

  @BeforeAll
  void startClusterWithAuthOn() throws Exception {
    sandbox =
        Sandbox.create(
            new SandboxSpec(dir.resolve("auth"), "auth", 3, "3.4.23"), EtcdReleases.store());
    enableAuth(sandbox);
    passwordFile = dir.resolve("etcd-root-password");
    Files.createFile(
        passwordFile,
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(passwordFile, password + "\n");
  }

  /** A root user with the root role, then {@code auth enable}. */
  private void enableAuth(Sandbox cluster) throws Exception {
    try (EtcdClients clients = new EtcdClients(cluster.cluster())) {
      Client client = clients.cluster();
      ByteSequence root = ByteSequence.from("root", StandardCharsets.UTF_8);
      client
          .getAuthClient()
          .userAdd(root, ByteSequence.from(password, StandardCharsets.UTF_8))
          .get(10, TimeUnit.SECONDS);
      client.getAuthClient().roleAdd(root).get(10, TimeUnit.SECONDS);
      client.getAuthClient().userGrantRole(root, root).get(10, TimeUnit.SECONDS);
      client.getAuthClient().authEnable().get(10, TimeUnit.SECONDS);
    }
  }

  @AfterAll
  void stop() {
    if (sandbox != null) sandbox.close();
  }

  private EtcdActivitiesImpl activities(ClusterSpec spec) {
    Inventory inventory = new Inventory(sandbox.inventory().releases(), Map.of(spec.name(), spec));
    return new EtcdActivitiesImpl(ClusterTargets.etcdOnly(() -> inventory));
  }

  private ClusterSpec withAuth(EtcdAuthSpec auth) {
    ClusterSpec s = sandbox.cluster();
    return new ClusterSpec(
        s.name(),
        s.members(),
        s.service(),
        s.ssh(),
        s.tls(),
        s.backupDir(),
        s.controlPlane(),
        s.backup(),
        auth);
  }

  @Test
  void withTheInventorysCredentialsDiscoveryReadsEverythingAndSeesAuthOn() {
    EtcdActivitiesImpl activities =
        activities(withAuth(new EtcdAuthSpec("root", passwordFile.toString())));

    ClusterState state = activities.discover(new ClusterRef("auth"));

    assertThat(state.members()).allMatch(MemberStatus::healthy);
    assertThat(state.authOn()).isTrue();
    assertThat(state.alarmsUnreadReason()).isEmpty();
    assertThat(state.revision()).isPositive();
    ConsistencyReport report = activities.checkConsistency(new ClusterRef("auth"));
    assertThat(report.hashesEqual()).as("hashes %s", report.hashByMember()).isTrue();
  }

  @Test
  void withoutCredentialsDiscoveryFailsSayingAuthIsOnAndWhatTheInventoryLacks() {
    assertThatThrownBy(() -> activities(sandbox.cluster()).discover(new ClusterRef("auth")))
        .isInstanceOfSatisfying(
            ApplicationFailure.class,
            f -> {
              assertThat(f.getType()).isEqualTo("InvalidRequest");
              assertThat(f.isNonRetryable()).isTrue();
              assertThat(f.getOriginalMessage())
                  .contains("authentication is on in cluster 'auth'", "add auth: {user: root");
            });
  }

  /**
   * 3.6 (and 3.5 from 3.5.2x on) refuses even a member's status without credentials: every member
   * answers, none with its status. That is authentication, not members down.
   */
  @Test
  void on3_6WhoseStatusNeedsCredentialsTooDiscoveryWithoutThemSaysAuthIsOn() throws Exception {
    try (Sandbox on36 =
        Sandbox.create(
            new SandboxSpec(dir.resolve("auth-3.6"), "auth", 1, "3.6.16"), EtcdReleases.store())) {
      enableAuth(on36);
      ClusterSpec spec = on36.cluster();
      Inventory inventory = new Inventory(on36.inventory().releases(), Map.of("auth", spec));

      assertThatThrownBy(
              () ->
                  new EtcdActivitiesImpl(ClusterTargets.etcdOnly(() -> inventory))
                      .discover(new ClusterRef("auth")))
          .isInstanceOfSatisfying(
              ApplicationFailure.class,
              f -> {
                assertThat(f.getType()).isEqualTo("InvalidRequest");
                assertThat(f.getOriginalMessage())
                    .contains("authentication is on in cluster 'auth'", "add auth: {user: root");
              });
    }
  }

  @Test
  void aWrongPasswordIsSaidAsSuchAndNotEchoed() throws Exception {
    Path wrong = dir.resolve("wrong-password");
    Files.createFile(
        wrong, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(wrong, "not-" + password);

    assertThatThrownBy(
            () ->
                activities(withAuth(new EtcdAuthSpec("root", wrong.toString())))
                    .discover(new ClusterRef("auth")))
        .isInstanceOfSatisfying(
            ApplicationFailure.class,
            f ->
                assertThat(f.getOriginalMessage())
                    .contains(
                        "etcd refused the inventory's credentials", "user 'root'", wrong.toString())
                    .doesNotContain(password));
  }
}
