package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.options.GetOption;
import io.etcdrunbooks.activities.etcd.EtcdClients;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.EtcdAuthSpec;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.backup.BackupClusterRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.restore.RestoreRequest;
import io.etcdrunbooks.workflows.restore.RestoreResult;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.temporal.client.WorkflowFailedException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 3.4.23 cluster with etcd authentication on (root user, {@code auth enable}) and the credentials
 * in the inventory (issue 12's test 4): the upgrade to 3.5 is refused with the remedy, and what
 * stays on 3.4 works with auth on: a backup, and a restore from it whose members and keys are read
 * back through the credentials.
 */
@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class AuthClusterRunbooksTest {

  @TempDir Path dir;

  @Test
  void theUpgradeTo35IsRefusedWithTheRemedyAndABackupAndRestoreWorkWithAuthOn() throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.4.23", Map.of())) {
      String password = "pw-" + UUID.randomUUID();
      enableAuth(runbooks.cluster(), password);
      ClusterSpec withAuth = withCredentials(runbooks, password);
      long written;
      try (EtcdClients clients = new EtcdClients(withAuth)) {
        Client client = clients.cluster();
        for (int i = 0; i < 200; i++) {
          client
              .getKVClient()
              .put(bytes("/registry/secrets/s-" + i), bytes("v" + i))
              .get(5, TimeUnit.SECONDS);
        }
        written = count(client);
      }

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
                    .contains("authentication is on", "etcdctl auth disable")
                    .doesNotContain(password);
              });

      BackupRecord backup =
          runbooks
              .backupStub()
              .backup(BackupClusterRequest.of("sandbox", "auth on", RunbookOptions.defaults()));
      assertThat(backup.revision()).isPositive();
      RestoreResult restored =
          runbooks
              .restoreStub()
              .restore(
                  RestoreRequest.of(
                          "sandbox",
                          backup.id(),
                          RunbookOptions.defaults().withMemberTimeoutSeconds(60))
                      .acknowledgingDataLoss()
                      .withEtcdVersion(""));

      assertThat(restored.liveKeysAfter()).isEqualTo(written);
      try (EtcdClients clients = new EtcdClients(withAuth)) {
        assertThat(count(clients.cluster())).isEqualTo(written);
        assertThat(clients.authEnabled()).as("auth still on after the restore").contains(true);
      }
      runbooks
          .state()
          .members()
          .forEach(m -> assertThat(m.healthy()).as("%s: %s", m.name(), m.errors()).isTrue());
    }
  }

  private static void enableAuth(ClusterSpec cluster, String password) throws Exception {
    try (EtcdClients clients = new EtcdClients(cluster)) {
      Client client = clients.cluster();
      ByteSequence root = bytes("root");
      client.getAuthClient().userAdd(root, bytes(password)).get(10, TimeUnit.SECONDS);
      client.getAuthClient().roleAdd(root).get(10, TimeUnit.SECONDS);
      client.getAuthClient().userGrantRole(root, root).get(10, TimeUnit.SECONDS);
      client.getAuthClient().authEnable().get(10, TimeUnit.SECONDS);
    }
  }

  /** The inventory gains auth: {user: root, passwordFile: <0600 file>}; returns the cluster. */
  private ClusterSpec withCredentials(SandboxRunbooks runbooks, String password) throws Exception {
    Path passwordFile = dir.resolve("etcd-root-password");
    Files.createFile(
        passwordFile,
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(passwordFile, password + "\n");
    return runbooks.editCluster(c -> c.withAuth(new EtcdAuthSpec("root", passwordFile.toString())));
  }

  private static long count(Client client) throws Exception {
    return client
        .getKVClient()
        .get(bytes("\0"), GetOption.builder().withRange(bytes("\0")).withCountOnly(true).build())
        .get(5, TimeUnit.SECONDS)
        .getCount();
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
