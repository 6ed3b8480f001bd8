package io.etcdrunbooks.activities.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.etcdrunbooks.activities.etcd.EtcdClients;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.BackupSpec;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.testkit.EtcdReleases;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.testkit.TestKeys;
import io.etcdrunbooks.workflows.activities.BackupActivities;
import io.etcdrunbooks.workflows.activities.BackupActivities.BackupRequest;
import io.etcdrunbooks.workflows.activities.RestoreActivities;
import io.etcdrunbooks.workflows.activities.RestoreActivities.CheckBackupRequest;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.temporal.activity.ActivityOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.domain.Blob;
import org.jclouds.blobstore.domain.StorageMetadata;
import org.jclouds.blobstore.options.ListContainerOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Backups of a real 1-member cluster uploaded by {@link BackupActivitiesImpl#copyOffsite} to a real
 * S3 server (s3proxy on jclouds' in-memory blob store, with AWS signatures checked), read back
 * through the blob store itself.
 */
@RealEtcd
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class BackupObjectStoreTest {

  private static final String BUCKET = "etcd-backups";
  private static final String ACCESS_KEY = "backup-writer";
  private static final String SECRET_KEY = "s3cr3t-NEVER-shown-4f9a1c";
  private static final String WRONG_SECRET = "wrong-SECRET-7d2e80";
  private static final long PART_SIZE = 5L << 20;

  @TempDir static Path dir;
  private Sandbox cluster;
  private BlobStoreContext blobs;
  private S3Proxy s3;
  private String endpoint;

  @BeforeAll
  void startClusterAndS3Server() throws Exception {
    cluster =
        Sandbox.create(
            new SandboxSpec(dir.resolve("cluster"), "c1", 1, "3.5.30"), EtcdReleases.store());
    try (EtcdClients clients = new EtcdClients(cluster.cluster())) {
      // more than one part: the upload goes through the multipart path
      for (int i = 0; i < 7; i++)
        TestKeys.put(clients.cluster(), "/registry/configmaps/big-" + i, "x".repeat(1 << 20));
    }
    blobs = ContextBuilder.newBuilder("transient").build(BlobStoreContext.class);
    blobs.getBlobStore().createContainerInLocation(null, BUCKET);
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    endpoint = "http://127.0.0.1:" + port;
    s3 =
        S3Proxy.builder()
            .blobStore(blobs.getBlobStore())
            .endpoint(URI.create(endpoint))
            .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
            .build();
    s3.start();
    while (!s3.getState().equals("STARTED")) Thread.sleep(10);
  }

  @AfterAll
  void stop() throws Exception {
    if (s3 != null) s3.stop();
    if (blobs != null) blobs.close();
    if (cluster != null) cluster.close();
  }

  @Test
  void aKeptBackupIsUploadedUnderClusterAndTimeWithItsSha256AndNotUploadedAgain() throws Exception {
    Path credentials = credentials("good", SECRET_KEY);
    BackupActivitiesImpl backups = backups(credentials);
    BackupRecord record = backups.takeVerifiedBackup(new BackupRequest("c1", "nightly-1"));
    assertThat(record.sizeBytes()).isGreaterThan(PART_SIZE);

    String where = backups.copyOffsite(new BackupRequest("c1", "nightly-1"));
    // what the worker's metrics read: the newest record in the bucket, as that record says
    assertThat(new NewestBackups(null).of(inventory(credentials).cluster("c1")))
        .containsEntry(NewestBackups.OBJECT_STORE, Instant.parse(record.takenAt()));

    String time =
        DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
            .withZone(ZoneOffset.UTC)
            .format(Instant.parse(record.takenAt()));
    String key = "runbooks/prod/c1/" + time + "-nightly-1.db.enc";
    assertThat(where).isEqualTo("s3://" + BUCKET + "/" + key);
    assertThat(keys())
        .filteredOn(k -> k.contains("nightly-1"))
        .containsExactly(key, "runbooks/prod/c1/" + time + "-nightly-1.json");
    BlobStore store = blobs.getBlobStore();
    Blob object = store.getBlob(BUCKET, key);
    try (InputStream in = object.getPayload().openStream()) {
      assertThat(in.readAllBytes()).isEqualTo(Files.readAllBytes(Path.of(record.path())));
    }
    assertThat(object.getMetadata().getUserMetadata()).containsEntry("sha256", record.sha256());
    assertThat(record.sha256()).isEqualTo(StoredBackups.sha256(Path.of(record.path())));
    Blob json = store.getBlob(BUCKET, "runbooks/prod/c1/" + time + "-nightly-1.json");
    try (InputStream in = json.getPayload().openStream()) {
      assertThat(in.readAllBytes())
          .isEqualTo(Files.readAllBytes(Path.of(cluster.cluster().backupDir(), "nightly-1.json")));
    }

    // the same bytes put back with a marker: a second upload would drop the marker
    Map<String, String> marked = new HashMap<>(object.getMetadata().getUserMetadata());
    marked.put("marker", "first-upload");
    store.putBlob(
        BUCKET,
        store
            .blobBuilder(key)
            .payload(Files.readAllBytes(Path.of(record.path())))
            .userMetadata(marked)
            .build());

    assertThat(backups.copyOffsite(new BackupRequest("c1", "nightly-1"))).isEqualTo(where);
    assertThat(store.getBlob(BUCKET, key).getMetadata().getUserMetadata())
        .containsEntry("marker", "first-upload");
  }

  @Test
  void wrongCredentialsFailRetryablyNamingBucketAndClusterWithoutTheSecretAndKeepTheBackup()
      throws Exception {
    BackupActivitiesImpl backups = backups(credentials("wrong", WRONG_SECRET));
    BackupRecord record = backups.takeVerifiedBackup(new BackupRequest("c1", "denied-1"));

    ApplicationFailure failure =
        catchThrowableOfType(
            ApplicationFailure.class,
            () -> backups.copyOffsite(new BackupRequest("c1", "denied-1")));

    assertThat(failure.getType()).isEqualTo(ObjectStoreCopy.FAILURE_TYPE);
    assertThat(failure.isNonRetryable()).isFalse();
    assertThat(failure.getOriginalMessage())
        .contains("bucket '" + BUCKET + "'", "cluster 'c1'", "denied-1", "HTTP 403")
        .doesNotContain(WRONG_SECRET, SECRET_KEY);
    assertThat(failure.getCause()).isNull();
    assertThat(Path.of(record.path())).exists();
    assertThat(keys()).noneMatch(k -> k.contains("denied-1"));
  }

  @Test
  void aBackupOnlyInTheObjectStoreIsDownloadedAndCheckedBeforeARestoreAndARottenOneIsRefused()
      throws Exception {
    Path credentials = credentials("good", SECRET_KEY);
    Inventory inventory = inventory(credentials);
    BackupActivitiesImpl backups = backups(credentials);
    // checkBackup reaches no host: the SSH client is never used
    SshConnector ssh = new SshConnector();
    RestoreActivitiesImpl restore =
        new RestoreActivitiesImpl(new ClusterTargets(() -> inventory, ssh), EtcdReleases.store());
    BackupRecord record = backups.takeVerifiedBackup(new BackupRequest("c1", "offsite-only"));
    String where = backups.copyOffsite(new BackupRequest("c1", "offsite-only"));
    Path file = Path.of(record.path());
    Path metadata = Path.of(cluster.cluster().backupDir(), "offsite-only.json");
    byte[] original = Files.readAllBytes(file);
    Files.delete(file);
    Files.delete(metadata);

    BackupRecord checked = restore.checkBackup(new CheckBackupRequest("c1", "offsite-only", null));

    assertThat(checked).isEqualTo(record);
    assertThat(Files.readAllBytes(file)).isEqualTo(original);
    assertThat(metadata).exists();

    // one byte flipped in the store: refused before anything else, nothing left on the worker
    Files.delete(file);
    Files.delete(metadata);
    String key = where.substring(("s3://" + BUCKET + "/").length());
    BlobStore store = blobs.getBlobStore();
    byte[] rotten = original.clone();
    rotten[rotten.length / 2] ^= 1;
    store.putBlob(
        BUCKET,
        store
            .blobBuilder(key)
            .payload(rotten)
            .userMetadata(store.getBlob(BUCKET, key).getMetadata().getUserMetadata())
            .build());

    ApplicationFailure failure =
        catchThrowableOfType(
            ApplicationFailure.class,
            () -> restore.checkBackup(new CheckBackupRequest("c1", "offsite-only", null)));

    assertThat(failure.getType()).isEqualTo("BackupCorrupt");
    assertThat(failure.getOriginalMessage()).contains(key, record.sha256());
    try (var left = Files.list(Path.of(cluster.cluster().backupDir()))) {
      assertThat(left.map(p -> p.getFileName().toString()))
          .noneMatch(n -> n.startsWith("offsite-only"));
    }
    ssh.close();
  }

  /**
   * Over a link of 1 MiB/s each way, a 5 MiB part takes five seconds on the wire: the upload and
   * the download both heartbeat while the bytes move and finish under a heartbeat timeout of 2 s. A
   * heartbeat per part, or per 8 MiB read back, timed them out (cancelled), as it would on any link
   * slow enough for the real timeout, and the upload would start again for ever.
   */
  @Test
  void anUploadAndADownloadOverASlowLinkHeartbeatWhileTheBytesAreOnTheWire() throws Exception {
    Path credentials = credentials("slow", SECRET_KEY);
    BackupRecord record =
        backups(credentials).takeVerifiedBackup(new BackupRequest("c1", "slow-link"));
    assertThat(record.sizeBytes()).isGreaterThan(PART_SIZE);
    Path file = Path.of(record.path());
    Path metadata = Path.of(cluster.cluster().backupDir(), "slow-link.json");
    try (SlowLink link = new SlowLink(URI.create(endpoint).getPort(), 1 << 20);
        SshConnector ssh = new SshConnector()) {
      Inventory inventory = inventory(credentials, link.endpoint());
      TestActivityEnvironment activities = TestActivityEnvironment.newInstance();
      activities.registerActivitiesImplementations(
          backups(inventory),
          new RestoreActivitiesImpl(
              new ClusterTargets(() -> inventory, ssh), EtcdReleases.store()));
      List<Long> beats = new CopyOnWriteArrayList<>();
      activities.setActivityHeartbeatListener(
          String.class, details -> beats.add(System.nanoTime()));
      ActivityOptions options =
          ActivityOptions.newBuilder()
              .setStartToCloseTimeout(Duration.ofMinutes(2))
              .setHeartbeatTimeout(Duration.ofSeconds(2))
              .build();

      long start = System.nanoTime();
      activities
          .newActivityStub(BackupActivities.class, options)
          .copyOffsite(new BackupRequest("c1", "slow-link"));
      heartbeatThroughout(start, beats);

      byte[] original = Files.readAllBytes(file);
      Files.delete(file);
      Files.delete(metadata);
      beats.clear();
      start = System.nanoTime();
      BackupRecord fetched =
          activities
              .newActivityStub(RestoreActivities.class, options)
              .checkBackup(new CheckBackupRequest("c1", "slow-link", null));
      assertThat(fetched).isEqualTo(record);
      assertThat(Files.readAllBytes(file)).isEqualTo(original);
      heartbeatThroughout(start, beats);
      activities.close();
    }
  }

  /**
   * Checks that a transfer took long enough to need heartbeats and that they came through it:
   * Temporal's test environment cancels an activity silent for its heartbeat timeout, as the server
   * would, so having returned at all is the main check; a heartbeat or two at each end is not
   * enough.
   */
  private static void heartbeatThroughout(long start, List<Long> beats) {
    Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
    assertThat(elapsed)
        .as("a transfer slow enough to need heartbeats")
        .isGreaterThan(Duration.ofSeconds(4));
    assertThat(beats).hasSizeGreaterThanOrEqualTo(3);
  }

  /**
   * Issue 30, test 3: ten backups of a small cluster with keepLast 3 (keepDailyDays 0), each copied
   * to a real SFTP host and the bucket, each followed by retention: exactly the newest three remain
   * on the worker, on the host and in the bucket, and a file of another layout there is left alone.
   * Each keeps the kube-apiserver's EncryptionConfiguration, which goes and is deleted with it
   * everywhere. Then the newest is only in the bucket: {@code latest} is downloaded from there, not
   * the older one the worker still holds; the one before only on the host: fetched from there by
   * id. Either comes back with its EncryptionConfiguration, SHA-256 checked.
   */
  @Test
  void retentionKeepsThePolicysSetOnEveryTargetAndLatestComesFromTheNewestTarget()
      throws Exception {
    try (Sandbox small =
            Sandbox.create(
                new SandboxSpec(dir.resolve("small"), "r1", 1, "3.5.30"), EtcdReleases.store());
        SshConnector ssh = new SshConnector()) {
      try (EtcdClients clients = new EtcdClients(small.cluster())) {
        for (int i = 0; i < 20; i++)
          TestKeys.put(clients.cluster(), "/registry/configmaps/small-" + i, "v" + i);
      }
      var offsite = small.addHost("offsite", "unused");
      Path remoteDir = small.hostRoot("offsite").resolve("srv/etcd-backups");
      Files.createDirectories(remoteDir);
      Files.writeString(remoteDir.resolve("not-ours.json"), "{\"note\":\"someone else's\"}");
      // the off-site host stands in for the control-plane host too: only its file is read
      Path encryptionConfig = small.hostRoot("offsite").resolve("etc/kubernetes/enc/config.yaml");
      Files.createDirectories(encryptionConfig.getParent());
      Files.writeString(
          encryptionConfig,
          "kind: EncryptionConfiguration\nresources:\n- resources: [secrets]\n"
              + "  providers:\n  - aescbc:\n      keys:\n      - name: key1\n"
              + "        secret: c2VjcmV0LWtleS1vbmUtMzItYnl0ZXMtbG9uZyEh\n  - identity: {}\n");
      ClusterSpec c = small.cluster();
      BackupSpec b = c.backup();
      BackupSpec settings =
          new BackupSpec(
              b.encrypt(),
              b.keyFile(),
              b.keyId(),
              3,
              0,
              null,
              new BackupSpec.CopyTo(offsite.host(), offsite.sshPort(), remoteDir.toString()),
              new BackupSpec.ObjectStore(
                  BUCKET,
                  "runbooks/prod",
                  null,
                  endpoint,
                  true,
                  credentials("good", SECRET_KEY).toString()),
              null,
              null,
              true);
      ClusterSpec spec =
          new ClusterSpec(
              c.name(),
              c.members(),
              c.service(),
              c.ssh(),
              c.tls(),
              c.backupDir(),
              List.of(
                  new io.etcdrunbooks.inventory.ControlPlaneHost(
                      "cp-offsite",
                      offsite.host(),
                      offsite.sshPort(),
                      encryptionConfig.resolveSibling("kube-apiserver.yaml").toString(),
                      "https://127.0.0.1:1/readyz",
                      encryptionConfig.toString())),
              settings);
      Inventory inventory = new Inventory(small.inventory().releases(), Map.of("r1", spec));
      ClusterTargets targets = new ClusterTargets(() -> inventory, ssh);
      BackupActivitiesImpl backups =
          new BackupActivitiesImpl(targets, EtcdReleases.store(), ssh, PART_SIZE);
      List<String> ids = new java.util.ArrayList<>();
      Map<String, BackupRecord> records = new HashMap<>();
      for (int i = 1; i <= 10; i++) {
        String id = "r1-" + (char) ('a' + i);
        records.put(id, backups.takeVerifiedBackup(new BackupRequest("r1", id)));
        backups.copyOffsite(new BackupRequest("r1", id));
        backups.applyRetention(new io.etcdrunbooks.workflows.model.ClusterRef("r1"));
        ids.add(id);
      }
      List<String> newestThree = ids.subList(7, 10);
      Path workerDir = Path.of(spec.backupDir());

      assertThat(backupIds(workerDir)).containsExactlyInAnyOrderElementsOf(newestThree);
      assertThat(backupIds(remoteDir)).containsExactlyInAnyOrderElementsOf(newestThree);
      for (Path d : List.of(workerDir, remoteDir))
        assertThat(keptConfigIds(d)).containsExactlyInAnyOrderElementsOf(newestThree);
      for (String id : newestThree) {
        BackupRecord r = records.get(id);
        assertThat(r.encryptionConfigFile()).endsWith("/" + id + ".encryption-config.enc");
        assertThat(StoredBackups.sha256(remoteDir.resolve(id + ".encryption-config.enc")))
            .isEqualTo(r.encryptionConfigSha256())
            .isEqualTo(StoredBackups.sha256(Path.of(r.encryptionConfigFile())));
      }
      assertThat(remoteDir.resolve("not-ours.json")).exists();
      assertThat(keys())
          .filteredOn(k -> k.startsWith("runbooks/prod/r1/"))
          .hasSize(9)
          .allMatch(k -> newestThree.stream().anyMatch(id -> k.contains("-" + id + ".")))
          .filteredOn(k -> k.endsWith(".encryption-config.enc"))
          .hasSize(3)
          .allSatisfy(
              k ->
                  assertThat(blobs.getBlobStore().getBlob(BUCKET, k).getMetadata())
                      .extracting(m -> m.getUserMetadata().get("sha256"))
                      .isIn(
                          newestThree.stream()
                              .map(id -> records.get(id).encryptionConfigSha256())
                              .toList()));
      // idempotent: a second run deletes nothing more
      backups.applyRetention(new io.etcdrunbooks.workflows.model.ClusterRef("r1"));
      assertThat(backupIds(remoteDir)).containsExactlyInAnyOrderElementsOf(newestThree);
      assertThat(keys()).filteredOn(k -> k.startsWith("runbooks/prod/r1/")).hasSize(9);

      // the newest only in the bucket: latest is fetched from there, not the worker's older one;
      // the one before only on the host: fetched from there by id
      String newest = ids.get(9);
      String onTheHost = ids.get(8);
      for (Path d : List.of(workerDir, remoteDir)) deleteBackup(d, newest);
      deleteBackup(workerDir, onTheHost);
      RestoreActivitiesImpl restore = new RestoreActivitiesImpl(targets, EtcdReleases.store());

      BackupRecord latest = restore.checkBackup(new CheckBackupRequest("r1", "latest", null));
      BackupRecord byId = restore.checkBackup(new CheckBackupRequest("r1", onTheHost, null));

      assertThat(latest).isEqualTo(records.get(newest));
      assertThat(byId).isEqualTo(records.get(onTheHost));
      for (BackupRecord r : List.of(latest, byId)) {
        assertThat(StoredBackups.sha256(workerDir.resolve(r.id() + ".db.enc")))
            .isEqualTo(r.sha256());
        assertThat(StoredBackups.sha256(workerDir.resolve(r.id() + ".encryption-config.enc")))
            .isEqualTo(r.encryptionConfigSha256());
        assertThat(EncryptionConfigs.kept(spec, r)).isEqualTo(Files.readString(encryptionConfig));
      }
    }
  }

  private static void deleteBackup(Path backupDir, String id) throws Exception {
    for (String suffix : List.of(".db.enc", ".encryption-config.enc", ".json"))
      Files.delete(backupDir.resolve(id + suffix));
  }

  private static List<String> keptConfigIds(Path backupDir) throws Exception {
    try (var files = Files.list(backupDir)) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.endsWith(".encryption-config.enc"))
          .map(n -> n.substring(0, n.length() - ".encryption-config.enc".length()))
          .toList();
    }
  }

  private static List<String> backupIds(Path backupDir) throws Exception {
    try (var files = Files.list(backupDir)) {
      return files
          .map(f -> f.getFileName().toString())
          .filter(n -> n.endsWith(".db.enc"))
          .map(n -> n.substring(0, n.length() - ".db.enc".length()))
          .toList();
    }
  }

  private List<String> keys() {
    return blobs.getBlobStore().list(BUCKET, ListContainerOptions.Builder.recursive()).stream()
        .map(StorageMetadata::getName)
        .sorted()
        .toList();
  }

  private Path credentials(String name, String secret) throws Exception {
    Path file = dir.resolve(name + "-credentials");
    Files.writeString(
        file,
        "[default]\naws_access_key_id = "
            + ACCESS_KEY
            + "\naws_secret_access_key = "
            + secret
            + "\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    return file;
  }

  private BackupActivitiesImpl backups(Path credentialsFile) {
    return backups(inventory(credentialsFile));
  }

  private static BackupActivitiesImpl backups(Inventory inventory) {
    return new BackupActivitiesImpl(
        ClusterTargets.etcdOnly(() -> inventory), EtcdReleases.store(), null, PART_SIZE);
  }

  private Inventory inventory(Path credentialsFile) {
    return inventory(credentialsFile, endpoint);
  }

  private Inventory inventory(Path credentialsFile, String endpoint) {
    ClusterSpec c = cluster.cluster();
    BackupSpec b = c.backup();
    BackupSpec withStore =
        new BackupSpec(
            b.encrypt(),
            b.keyFile(),
            b.keyId(),
            null,
            null,
            null,
            null,
            new BackupSpec.ObjectStore(
                BUCKET, "runbooks/prod", "eu-west-1", endpoint, true, credentialsFile.toString()));
    ClusterSpec changed =
        new ClusterSpec(
            c.name(),
            c.members(),
            c.service(),
            c.ssh(),
            c.tls(),
            c.backupDir(),
            c.controlPlane(),
            withStore);
    return new Inventory(cluster.inventory().releases(), Map.of(c.name(), changed));
  }
}
