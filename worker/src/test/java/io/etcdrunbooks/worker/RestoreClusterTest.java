package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.etcdrunbooks.inventory.BackupSpec;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.ControlPlaneHost;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.ControlPlaneStandIns;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.backup.BackupClusterRequest;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.restore.RestoreClusterWorkflow;
import io.etcdrunbooks.workflows.restore.RestoreRequest;
import io.etcdrunbooks.workflows.restore.RestoreResult;
import io.temporal.client.WorkflowFailedException;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStoreContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * RestoreCluster on real sandbox clusters with kube-apiserver stand-ins, from backups the
 * BackupCluster runbook took. Its methods run side by side, each on its own sandbox.
 */
@RealEtcd
@Execution(ExecutionMode.CONCURRENT)
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class RestoreClusterTest {

  @TempDir Path dir;

  @Test
  void twoOfThreeMembersDestroyedAreRestoredFromTheLatestBackupWithEveryKeyAndTheApiServersBack()
      throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.5.16", Map.of());
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(runbooks.sandbox);
        ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
      probe.putManyUnordered("/registry/secrets/default/s-", 2000);
      probe.put("/registry/configmaps/overwritten", "first");
      probe.put("/registry/configmaps/overwritten", "second");
      BackupRecord backup =
          runbooks
              .backupStub()
              .backup(
                  BackupClusterRequest.of(
                      "sandbox", "before the disaster", RunbookOptions.defaults()));
      Map<String, ClusterProbe.StoredKey> atBackup = probe.dump(backup.revision());
      probe.putMany("/registry/events/lost-", 40);
      long lastRevision = probe.revision();
      String m1DataBefore = runbooks.cluster().member("m1").dataDir();
      runbooks.destroy("m2");
      runbooks.destroy("m3");

      RestoreResult result =
          runbooks
              .restoreStub()
              .restore(
                  RestoreRequest.of(
                          "sandbox",
                          "",
                          RunbookOptions.defaults()
                              .withMemberTimeoutSeconds(60)
                              .withApiServerTimeoutSeconds(30))
                      .acknowledgingDataLoss()
                      .withEtcdVersion(""));

      assertThat(result.backup().id()).isEqualTo(backup.id());
      assertThat(result.lostRevisions()).contains((backup.revision() + 1) + ".." + lastRevision);
      assertThat(result.revisionBump()).isPositive();
      assertThat(result.revisionAfter()).isEqualTo(backup.revision() + result.revisionBump());
      assertThat(result.liveKeysAfter()).isEqualTo(atBackup.size());
      assertThat(runbooks.state().members())
          .hasSize(3)
          .allSatisfy(m -> assertThat(m.healthy()).as("%s: %s", m.name(), m.errors()).isTrue());
      assertThat(probe.dump(0)).isEqualTo(atBackup);
      assertThat(probe.revision()).isEqualTo(backup.revision() + result.revisionBump());
      Map<String, Long> hashes = probe.hashKvByMember(0);
      assertThat(hashes.values().stream().distinct()).hasSize(1);
      assertThat(Path.of(result.dataDirsKeptAside().get("m1")))
          .isEqualTo(Path.of(m1DataBefore + ".before-restore-" + result.restoreId()))
          .isDirectory();
      assertThat(result.dataDirsKeptAside().get("m2")).isEmpty();
      assertThat(result.apiServersRestarted()).containsExactlyElementsOf(apiServers.hosts());
      for (String host : apiServers.hosts()) {
        assertThat(apiServers.manifest(host)).exists();
        assertThat(HttpProbe.status(apiServers.standIn(host).healthUrl()))
            .as("%s /readyz", host)
            .isEqualTo(200);
      }
      try (var files = Files.list(Path.of(runbooks.cluster().backupDir()))) {
        assertThat(files.map(p -> p.getFileName().toString()))
            .noneMatch(n -> n.contains(".restore-"));
      }

      Path out = Path.of("target", "recorded-restore-history.json");
      Files.createDirectories(out.getParent());
      Files.writeString(
          out,
          runbooks
              .client()
              .fetchHistory(RestoreClusterWorkflow.workflowId("sandbox"))
              .toJson(true));
    }
  }

  @Test
  void
      aThreeMemberClustersBackupGoesOntoThreeOtherHostsAndTheInventoryApiServersAndControllersFollowWhileTheOldMembersRunOn()
          throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.5.16", Map.of());
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(runbooks.sandbox);
        ClusterProbe old = new ClusterProbe(runbooks.cluster())) {
      old.putManyUnordered("/registry/secrets/default/s-", 300);
      Map<String, Path> encryptionConfigs = new LinkedHashMap<>();
      runbooks.editCluster(
          c -> {
            List<ControlPlaneHost> hosts = new java.util.ArrayList<>();
            for (ControlPlaneHost h : c.controlPlane()) {
              Path file =
                  Path.of(h.manifestPath())
                      .getParent()
                      .resolveSibling("enc/encryption-config.yaml");
              encryptionConfigs.put(h.name(), file);
              hosts.add(
                  new ControlPlaneHost(
                      h.name(),
                      h.host(),
                      h.sshPort(),
                      h.manifestPath(),
                      h.healthUrl(),
                      file.toString()));
            }
            BackupSpec b = c.backup();
            return new ClusterSpec(
                c.name(),
                c.members(),
                c.service(),
                c.ssh(),
                c.tls(),
                c.backupDir(),
                hosts,
                new BackupSpec(
                    b.encrypt(),
                    b.keyFile(),
                    b.keyId(),
                    b.keepLast(),
                    b.keepDailyDays(),
                    b.intervalMinutes(),
                    b.copyTo(),
                    b.objectStore(),
                    b.schedule(),
                    b.drillIntervalMinutes(),
                    true));
          });
      for (Path file : encryptionConfigs.values()) {
        Files.createDirectories(file.getParent());
        Files.writeString(
            file, encryptionConfig("key1", "c2VjcmV0LWtleS1vbmUtMzItYnl0ZXMtbG9uZyEh"));
      }
      BackupRecord backup =
          runbooks
              .backupStub()
              .backup(BackupClusterRequest.of("sandbox", "to move", RunbookOptions.defaults()));
      assertThat(backup.encryptionKeys()).containsExactly("aescbc/key1", "identity");
      assertThat(Path.of(backup.encryptionConfigFile())).exists();
      assertThat(
              Files.readString(Path.of(backup.encryptionConfigFile()), StandardCharsets.ISO_8859_1))
          .doesNotContain("c2VjcmV0LWtleS1vbmUtMzItYnl0ZXMtbG9uZyEh");
      String backedUpConfig = Files.readString(encryptionConfigs.get("cp-m2"));
      // the keys were rotated on cp-m2 after the backup: key1 is gone there
      Files.writeString(
          encryptionConfigs.get("cp-m2"),
          encryptionConfig("key2", "c2VjcmV0LWtleS10d28tMzItYnl0ZXMtbG9uZyEhISE="));
      Map<String, ClusterProbe.StoredKey> atBackup = old.dump(backup.revision());
      old.putMany("/registry/events/lost-", 20);
      List<String> oldNames = runbooks.cluster().members().stream().map(MemberSpec::name).toList();
      Map<String, Long> pids = new LinkedHashMap<>();
      oldNames.forEach(m -> pids.put(m, runbooks.sandbox.pidOf(m)));
      List<MemberPlacement> newMembers =
          List.of(
              runbooks.sandbox.addHost("n1", "n1"),
              runbooks.sandbox.addHost("n2", "n2"),
              runbooks.sandbox.addHost("n3", "n3"));
      // cp-m1 runs both controllers; on cp-m2 a crash left the scheduler's manifest out
      Path manifests = apiServers.manifest("cp-m1").getParent();
      Path controllerManager = manifests.resolve("kube-controller-manager.yaml");
      Path scheduler = manifests.resolve("kube-scheduler.yaml");
      Files.writeString(controllerManager, "kind: Pod # kube-controller-manager\n");
      Files.writeString(scheduler, "kind: Pod # kube-scheduler\n");
      Path leftOut =
          apiServers
              .manifest("cp-m2")
              .resolveSibling(".kube-scheduler.yaml.etcd-runbooks.restarting");
      Files.writeString(leftOut, "kind: Pod # kube-scheduler\n");
      Path stray = Path.of(newMembers.get(1).dataDir()).resolve("member");
      Files.createDirectories(stray);

      assertThatThrownBy(
              () ->
                  runbooks.restoreStub().restore(restoreOf(backup.id()).withNewMembers(newMembers)))
          .satisfies(
              e ->
                  assertThat(Failures.rootMessage(e))
                      .contains("refused, nothing was touched")
                      .contains("its data dir " + newMembers.get(1).dataDir() + " is not empty")
                      .contains(
                          "cp-m2: the kube-apiserver's EncryptionConfiguration "
                              + encryptionConfigs.get("cp-m2")
                              + " lacks the keys [aescbc/key1]"));
      assertThat(runbooks.cluster().members()).extracting(MemberSpec::name).isEqualTo(oldNames);
      oldNames.forEach(m -> assertThat(runbooks.sandbox.pidOf(m)).isEqualTo(pids.get(m)));
      for (String host : apiServers.hosts()) assertThat(apiServers.manifest(host)).exists();
      Files.delete(stray);

      AtomicBoolean controllersSeenOut = new AtomicBoolean();
      AtomicBoolean watching = new AtomicBoolean(true);
      Thread watcher =
          new Thread(
              () -> {
                while (watching.get()) {
                  if (!Files.exists(controllerManager) && !Files.exists(scheduler))
                    controllersSeenOut.set(true);
                  try {
                    Thread.sleep(100);
                  } catch (InterruptedException e) {
                    return;
                  }
                }
              });
      watcher.start();
      RestoreResult result;
      try {
        result =
            runbooks
                .restoreStub()
                .restore(
                    restoreOf(backup.id())
                        .withNewMembers(newMembers)
                        .withEncryptionConfigPutBack(true)
                        .withControllersOutSeconds(2));
      } finally {
        watching.set(false);
        watcher.join();
      }

      List<String> newUrls = newMembers.stream().map(MemberPlacement::clientUrl).toList();
      assertThat(runbooks.cluster().members())
          .extracting(MemberSpec::name, MemberSpec::clientUrl)
          .containsExactly(
              tuple("n1", newUrls.get(0)),
              tuple("n2", newUrls.get(1)),
              tuple("n3", newUrls.get(2)));
      try (ClusterProbe restored = new ClusterProbe(runbooks.cluster())) {
        assertThat(restored.dump(0)).isEqualTo(atBackup);
        assertThat(restored.revision()).isEqualTo(backup.revision() + result.revisionBump());
        assertThat(restored.hashKvByMember(0).values().stream().distinct()).hasSize(1);
      }
      assertThat(result.revisionBump()).isPositive();
      assertThat(result.liveKeysAfter()).isEqualTo(atBackup.size());
      assertThat(runbooks.state().members())
          .extracting(m -> m.name())
          .containsExactlyInAnyOrder("n1", "n2", "n3");
      for (String host : apiServers.hosts()) {
        assertThat(Files.readString(apiServers.manifest(host)))
            .contains("--etcd-servers=" + String.join(",", newUrls) + "\n");
        assertThat(HttpProbe.status(apiServers.standIn(host).healthUrl()))
            .as("%s /readyz", host)
            .isEqualTo(200);
      }
      oldNames.forEach(
          m ->
              assertThat(runbooks.sandbox.pidOf(m))
                  .as("%s still running, untouched", m)
                  .isEqualTo(pids.get(m)));
      assertThat(old.revision()).isGreaterThan(backup.revision());
      assertThat(result.oldMembersLeftRunning())
          .hasSize(3)
          .allSatisfy(m -> assertThat(m).startsWith("m"));
      assertThat(controllersSeenOut).as("controllers' manifests moved out").isTrue();
      assertThat(controllerManager).exists();
      assertThat(scheduler).exists();
      assertThat(apiServers.manifest("cp-m2").resolveSibling("kube-scheduler.yaml")).exists();
      assertThat(leftOut).doesNotExist();
      assertThat(result.controllersRestarted())
          .containsExactly(
              "cp-m1: " + controllerManager,
              "cp-m1: " + scheduler,
              "cp-m2: " + leftOut.resolveSibling("kube-scheduler.yaml"));
      assertThat(result.kubeletsToRestart()).contains("cp-m1", "every worker node");
      assertThat(result.encryptionConfigPutBack()).containsExactly("cp-m2");
      assertThat(encryptionConfigs.get("cp-m2")).hasContent(backedUpConfig);
      assertThat(
              encryptionConfigs
                  .get("cp-m2")
                  .resolveSibling("encryption-config.yaml.before-restore-" + result.restoreId()))
          .content()
          .contains("key2");
    }
  }

  /** kube-apiserver's EncryptionConfiguration for Secrets: one aescbc key, then identity. */
  private static String encryptionConfig(String keyName, String secret) {
    return """
        apiVersion: apiserver.config.k8s.io/v1
        kind: EncryptionConfiguration
        resources:
          - resources:
              - secrets
            providers:
              - aescbc:
                  keys:
                    - name: %s
                      secret: %s
              - identity: {}
        """
        .formatted(keyName, secret);
  }

  @Test
  void aStaticPodClusterIsRestoredWithTheVersionsToolBroughtToEachNodeAndItsManifestsPutBack()
      throws Exception {
    try (SandboxRunbooks runbooks =
            SandboxRunbooks.start(
                dir, "3.5.16", Map.of(), io.etcdrunbooks.inventory.ServiceSpec.STATIC_POD);
        ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
      probe.putManyUnordered("/registry/leases/kube-node-lease/n-", 500);
      BackupRecord backup =
          runbooks
              .backupStub()
              .backup(
                  BackupClusterRequest.of(
                      "sandbox", "before the bad change", RunbookOptions.defaults()));
      Map<String, ClusterProbe.StoredKey> atBackup = probe.dump(backup.revision());
      probe.putMany("/registry/leases/kube-node-lease/after-", 30);
      Set<Path> stagingBefore = restoreStagings();

      RestoreResult result =
          runbooks
              .restoreStub()
              .restore(
                  RestoreRequest.of(
                          "sandbox",
                          backup.id(),
                          RunbookOptions.defaults()
                              .withMemberTimeoutSeconds(90)
                              .withApiServerTimeoutSeconds(30))
                      .acknowledgingDataLoss()
                      .withEtcdVersion(""));

      assertThat(result.revisionAfter()).isEqualTo(backup.revision() + result.revisionBump());
      assertThat(probe.dump(0)).isEqualTo(atBackup);
      assertThat(runbooks.state().members())
          .hasSize(3)
          .allSatisfy(m -> assertThat(m.healthy()).as("%s: %s", m.name(), m.errors()).isTrue());
      for (MemberSpec m : runbooks.cluster().members()) {
        assertThat(runbooks.sandbox.manifestPath(m.name()))
            .as("%s's manifest back in place", m.name())
            .exists();
      }
      Set<Path> staged = restoreStagings();
      staged.removeAll(stagingBefore);
      assertGoneSoon(staged);
    }
  }

  @Test
  void aWrongOrMissingKeyATruncatedFileOrAnotherClustersBackupIsRefusedWithNothingTouched()
      throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.4.23", Map.of());
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(runbooks.sandbox);
        ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
      probe.putManyUnordered("/registry/pods/p-", 100);
      BackupRecord backup =
          runbooks
              .backupStub()
              .backup(BackupClusterRequest.of("sandbox", "test", RunbookOptions.defaults()));
      ClusterSpec cluster = runbooks.cluster();
      Path keyFile = Path.of(cluster.backupSettings().keyFile());
      byte[] rightKey = Files.readAllBytes(keyFile);
      Path stored = Path.of(backup.path());
      byte[] rightFile = Files.readAllBytes(stored);
      Map<String, Long> pids = new LinkedHashMap<>();
      cluster.members().forEach(m -> pids.put(m.name(), runbooks.sandbox.pidOf(m.name())));

      assertRefused(
          runbooks,
          RestoreRequest.of(
                  "sandbox",
                  "",
                  RunbookOptions.defaults()
                      .withMemberTimeoutSeconds(60)
                      .withApiServerTimeoutSeconds(30))
              .withEtcdVersion(""),
          "acknowledgeDataLoss must be true");

      byte[] otherKey = new byte[32];
      new SecureRandom().nextBytes(otherKey);
      Files.writeString(keyFile, Base64.getEncoder().encodeToString(otherKey) + "\n");
      assertRefused(runbooks, restoreOf(backup.id()), "does not decrypt with the key");

      Files.delete(keyFile);
      assertRefused(runbooks, restoreOf(backup.id()), keyFile.toString());
      Files.write(keyFile, rightKey, StandardOpenOption.CREATE_NEW);

      Files.write(stored, java.util.Arrays.copyOf(rightFile, rightFile.length / 2));
      assertRefused(runbooks, restoreOf(backup.id()), "truncated");
      Files.write(stored, rightFile);

      Path backupDir = Path.of(cluster.backupDir());
      String foreign =
          Files.readString(backupDir.resolve(backup.id() + ".json"), StandardCharsets.UTF_8)
              .replace("\"cluster\" : \"sandbox\"", "\"cluster\" : \"prod-eu\"")
              .replace(backup.id(), "foreign-1");
      assertThat(foreign).contains("prod-eu");
      Files.writeString(backupDir.resolve("foreign-1.json"), foreign);
      Files.write(backupDir.resolve("foreign-1.db.enc"), rightFile);
      assertRefused(
          runbooks, restoreOf("foreign-1"), "is a backup of cluster 'prod-eu', not of 'sandbox'");

      cluster
          .members()
          .forEach(
              m ->
                  assertThat(runbooks.sandbox.pidOf(m.name()))
                      .as("%s untouched", m.name())
                      .isEqualTo(pids.get(m.name())));
      for (MemberSpec m : cluster.members()) {
        assertThat(Path.of(m.dataDir()).resolve("member")).exists();
        try (var siblings = Files.list(Path.of(m.dataDir()).getParent())) {
          assertThat(siblings.map(p -> p.getFileName().toString()))
              .noneMatch(n -> n.contains("before-restore"));
        }
      }
      for (String host : apiServers.hosts()) {
        assertThat(apiServers.manifest(host)).exists();
        assertThat(HttpProbe.status(apiServers.standIn(host).healthUrl())).isEqualTo(200);
      }
      assertThat(runbooks.state().members()).allSatisfy(m -> assertThat(m.healthy()).isTrue());
    }
  }

  /** The restores' staging directories in /var/tmp now (of every restore on this machine). */
  private static Set<Path> restoreStagings() throws IOException {
    try (var files = Files.list(Path.of("/var/tmp"))) {
      return files
          .filter(p -> p.getFileName().toString().startsWith("etcd-runbooks-restore."))
          .collect(Collectors.toCollection(HashSet::new));
    }
  }

  /**
   * The staging directories that appeared during a restore are gone: its own at once, those of a
   * restore running beside it (another test's) when that one's member is restored, within seconds.
   */
  private static void assertGoneSoon(Set<Path> staged) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (staged.stream().anyMatch(Files::exists) && System.nanoTime() < deadline) {
      TimeUnit.MILLISECONDS.sleep(200);
    }
    assertThat(staged).as("staging directories left in /var/tmp").noneMatch(Files::exists);
  }

  private static RestoreRequest restoreOf(String backupId) {
    return RestoreRequest.of(
            "sandbox",
            backupId,
            RunbookOptions.defaults().withMemberTimeoutSeconds(60).withApiServerTimeoutSeconds(30))
        .acknowledgingDataLoss()
        .withEtcdVersion("");
  }

  @Test
  void aBackupThatIsOnlyInTheObjectStoreIsRestoredByIdWithItsKeysAndRevision() throws Exception {
    BlobStoreContext blobs = ContextBuilder.newBuilder("transient").build(BlobStoreContext.class);
    blobs.getBlobStore().createContainerInLocation(null, "etcd-backups");
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    S3Proxy s3 =
        S3Proxy.builder()
            .blobStore(blobs.getBlobStore())
            .endpoint(URI.create("http://127.0.0.1:" + port))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, "restorer", "s3-secret-9f1b")
            .build();
    s3.start();
    Path credentials = Files.createTempFile("s3-credentials", "");
    Files.writeString(
        credentials,
        "[default]\naws_access_key_id = restorer\naws_secret_access_key = s3-secret-9f1b\n");
    Files.setPosixFilePermissions(credentials, PosixFilePermissions.fromString("rw-------"));
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.5.16", Map.of());
        ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
      while (!s3.getState().equals("STARTED")) Thread.sleep(10);
      runbooks.editCluster(
          c -> {
            BackupSpec b = c.backup();
            return new ClusterSpec(
                c.name(),
                c.members(),
                c.service(),
                c.ssh(),
                c.tls(),
                c.backupDir(),
                c.controlPlane(),
                new BackupSpec(
                    b.encrypt(),
                    b.keyFile(),
                    b.keyId(),
                    null,
                    null,
                    null,
                    null,
                    new BackupSpec.ObjectStore(
                        "etcd-backups",
                        "prod",
                        null,
                        "http://127.0.0.1:" + port,
                        true,
                        credentials.toString())));
          });
      // the worker reads the inventory again when its modification time moves
      Path inventoryFile = runbooks.sandbox.inventoryFile();
      Files.setLastModifiedTime(
          inventoryFile,
          FileTime.fromMillis(Files.getLastModifiedTime(inventoryFile).toMillis() + 2_000));
      probe.putMany("/registry/secrets/default/s-", 500);
      BackupRecord backup =
          runbooks
              .backupStub()
              .backup(
                  BackupClusterRequest.of("sandbox", "to the bucket", RunbookOptions.defaults()));
      Map<String, ClusterProbe.StoredKey> atBackup = probe.dump(backup.revision());
      probe.putMany("/registry/events/lost-", 40);
      try (var kept = Files.list(Path.of(runbooks.cluster().backupDir()))) {
        for (Path file : kept.toList()) Files.delete(file);
      }
      runbooks.destroy("m3");

      RestoreResult result =
          runbooks
              .restoreStub()
              .restore(
                  RestoreRequest.of(
                          "sandbox",
                          backup.id(),
                          RunbookOptions.defaults()
                              .withMemberTimeoutSeconds(60)
                              .withApiServerTimeoutSeconds(30))
                      .acknowledgingDataLoss()
                      .withEtcdVersion(""));

      assertThat(result.backup()).isEqualTo(backup);
      assertThat(result.revisionAfter()).isEqualTo(backup.revision() + result.revisionBump());
      assertThat(result.liveKeysAfter()).isEqualTo(atBackup.size());
      assertThat(probe.dump(0)).isEqualTo(atBackup);
      assertThat(probe.revision()).isEqualTo(result.revisionAfter());
    } finally {
      s3.stop();
      blobs.close();
      Files.deleteIfExists(credentials);
    }
  }

  private static void assertRefused(SandboxRunbooks runbooks, RestoreRequest request, String why) {
    assertThatThrownBy(() -> runbooks.restoreStub().restore(request))
        .isInstanceOf(WorkflowFailedException.class)
        .satisfies(
            e ->
                assertThat(Failures.rootMessage(e))
                    .contains("refused, nothing was touched")
                    .contains(why));
  }
}
