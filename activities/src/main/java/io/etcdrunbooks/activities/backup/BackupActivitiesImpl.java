package io.etcdrunbooks.activities.backup;

import static io.etcdrunbooks.activities.backup.StoredBackups.JSON;
import static io.etcdrunbooks.activities.backup.StoredBackups.PRIVATE;
import static io.etcdrunbooks.activities.backup.StoredBackups.backupKey;
import static io.etcdrunbooks.activities.backup.StoredBackups.keptRecords;
import static io.etcdrunbooks.activities.backup.StoredBackups.sha256;
import static io.etcdrunbooks.activities.backup.StoredBackups.storedFile;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.maintenance.HashKVResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcdrunbooks.activities.etcd.ClusterInspector;
import io.etcdrunbooks.activities.etcd.EtcdCallException;
import io.etcdrunbooks.activities.etcd.EtcdClients;
import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.BackupSpec;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.workflows.activities.BackupActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.KeyspaceHash;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.model.RetentionResult;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.DigestInputStream;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link BackupActivities}: snapshots streamed through the etcd API, verified, encrypted with
 * {@link SnapshotCipher} into {@code <backupDir>/<backupId>.db.enc} ({@code .db} when the inventory
 * says {@code encrypt: false}), with their {@link BackupRecord} beside them in {@code
 * <backupId>.json}.
 *
 * <p>Checks before a snapshot is kept: the stream's own SHA-256 trailer; etcd's tool of the
 * member's version reads the file; its revision is at least the revision read just before the
 * snapshot; and the live key count at that revision is at most the tool's {@code totalKey}. The
 * tool's {@code totalKey} counts every entry of every bucket in the file (each stored revision of
 * each key, tombstones, and bookkeeping entries), so it can never equal the live key count and is
 * only an upper bound of it (see {@link SnapshotStatus}).
 */
public final class BackupActivitiesImpl implements BackupActivities {

  private static final Logger log = LoggerFactory.getLogger(BackupActivitiesImpl.class);
  private static final Pattern BACKUP_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  /** A snapshot whose stream sends nothing for this long is abandoned. */
  private static final Duration STALL_TIMEOUT = Duration.ofSeconds(30);

  private static final String PLAINTEXT_SUFFIX = ".plaintext.part";

  private final ClusterTargets targets;
  private final ReleaseStore releases;

  private final OffsiteCopy offsite;
  private final ObjectStoreCopy objectStore;

  /**
   * Without an SSH client: backups that must be copied off-site (backup.copyTo) fail at the copy.
   */
  public BackupActivitiesImpl(ClusterTargets targets, ReleaseStore releases) {
    this(targets, releases, null);
  }

  /**
   * @param offsite the SSH client backups are copied off-site with (backup.copyTo)
   */
  public BackupActivitiesImpl(ClusterTargets targets, ReleaseStore releases, SshConnector offsite) {
    this(targets, releases, offsite, ObjectStoreCopy.DEFAULT_PART_SIZE);
  }

  /**
   * @param uploadPartSize backups larger than this are uploaded to object storage in parts of this
   *     size (at least 5 MiB)
   */
  BackupActivitiesImpl(
      ClusterTargets targets, ReleaseStore releases, SshConnector offsite, long uploadPartSize) {
    this.targets = targets;
    this.releases = releases;
    this.offsite = offsite == null ? null : new OffsiteCopy(offsite);
    this.objectStore = new ObjectStoreCopy(uploadPartSize);
  }

  @Override
  public BackupRecord takeVerifiedBackup(BackupRequest request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    if (request.backupId() == null || !BACKUP_ID.matcher(request.backupId()).matches()) {
      throw FailureType.InvalidRequest.nonRetryable(
          "backup id '"
              + request.backupId()
              + "' must be a plain file name: letters, digits, '.', '_' and '-', starting with a letter or digit");
    }
    BackupKey key = spec.backupSettings().encrypts() ? backupKey(spec) : null;
    Path dir = Path.of(spec.backupDir());
    Path metadata = dir.resolve(request.backupId() + ".json");
    try {
      Files.createDirectories(dir);
      BackupRecord kept = keptBackup(spec, request.backupId(), dir, metadata);
      if (kept != null) return kept;
      try (EtcdClients clients = targets.clients(spec)) {
        BackupRecord record =
            EncryptionConfigs.attach(
                targets,
                spec,
                snapshot(new ClusterInspector(clients), request.backupId(), dir, key),
                dir,
                key);
        writeAtomically(metadata, JSON.writeValueAsBytes(record));
        log.info(
            "backup {} of cluster {}: member {} (etcd {}), revision {}, {} bytes, {}",
            record.id(),
            record.cluster(),
            record.member(),
            record.etcdVersion(),
            record.revision(),
            record.sizeBytes(),
            record.encrypted() ? "encrypted with key " + record.keyId() : "NOT encrypted");
        return record;
      } catch (EtcdCallException e) {
        throw FailureType.MembersUnreachable.retryable(
            "backup " + request.backupId() + " of cluster '" + spec.name() + "': " + e.getMessage(),
            e);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(
          "backup "
              + request.backupId()
              + " of cluster '"
              + spec.name()
              + "' in "
              + dir
              + ": "
              + e.getMessage(),
          e);
    }
  }

  @Override
  public RetentionResult applyRetention(ClusterRef ref) {
    ClusterSpec spec = targets.cluster(ref.cluster());
    BackupSpec settings = spec.backupSettings();
    RetentionPolicy policy;
    try {
      policy = new RetentionPolicy(settings.keepLastOrDefault(), settings.keepDailyDaysOrDefault());
    } catch (IllegalArgumentException e) {
      throw FailureType.InvalidRequest.nonRetryable(
          "cluster '" + spec.name() + "': " + e.getMessage());
    }
    Path dir = Path.of(spec.backupDir());
    try {
      Map<String, BackupRecord> records = keptRecords(spec, dir);
      List<RetentionPolicy.Candidate> candidates = new ArrayList<>();
      List<String> unverified = new ArrayList<>();
      for (BackupRecord r : records.values()) {
        Path file = storedFile(dir, r);
        boolean verified = Files.isRegularFile(file) && Files.size(file) == r.sizeBytes();
        if (!verified) unverified.add(r.id());
        candidates.add(new RetentionPolicy.Candidate(r.id(), Instant.parse(r.takenAt()), verified));
      }
      Instant now = Instant.now();
      RetentionPolicy.Decision decision = policy.decide(candidates, now);
      for (String id : decision.delete()) {
        // the file first: metadata left without its file is unverified, and deleted by the next run
        PacedSync.deleteIfExists(storedFile(dir, records.get(id)));
        Files.deleteIfExists(dir.resolve(id + EncryptionConfigs.SUFFIX));
        Files.deleteIfExists(dir.resolve(id + ".json"));
        log.info("retention of cluster {}: deleted backup {}", spec.name(), id);
      }
      for (RemoteTarget target : remoteTargets()) {
        if (target.configuredFor(spec))
          RemoteRetention.apply(policy, target, spec, now, Set.copyOf(decision.keep()));
      }
      return new RetentionResult(spec.name(), decision.keep(), decision.delete(), unverified);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "retention of cluster '" + spec.name() + "' in " + dir + ": " + e.getMessage(), e);
    }
  }

  /** The off-site host (when this worker has an SSH client) and the object store. */
  private List<RemoteTarget> remoteTargets() {
    return offsite == null ? List.of(objectStore) : List.of(offsite, objectStore);
  }

  @Override
  public String copyOffsite(BackupRequest request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    BackupSpec settings = spec.backupSettings();
    if (settings.copyTo() == null && settings.objectStore() == null) return "";
    if (settings.copyTo() != null && offsite == null)
      throw FailureType.InvalidRequest.nonRetryable(
          "this worker has no SSH client to copy backups off-site");
    Path dir = Path.of(spec.backupDir());
    Path metadata = dir.resolve(request.backupId() + ".json");
    if (!Files.exists(metadata)) {
      throw FailureType.InvalidRequest.nonRetryable(
          "cluster '" + spec.name() + "' has no backup " + request.backupId() + " in " + dir);
    }
    try {
      BackupRecord record = keptBackup(spec, request.backupId(), dir, metadata);
      Path stored = storedFile(dir, record);
      List<String> copies = new ArrayList<>();
      if (settings.copyTo() != null) copies.add(offsite.copy(spec, record, stored, metadata));
      if (settings.objectStore() != null)
        copies.add(objectStore.copy(spec, record, stored, metadata));
      return String.join(" and ", copies);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "backup " + request.backupId() + " of cluster '" + spec.name() + "': " + e.getMessage(),
          e);
    }
  }

  @Override
  public int scheduleIntervalMinutes(ClusterRef ref) {
    return targets.cluster(ref.cluster()).backupSettings().intervalMinutesOrDefault();
  }

  /**
   * The kept backup with this id when its file still matches its metadata; null when there is none.
   */
  private static BackupRecord keptBackup(ClusterSpec spec, String id, Path dir, Path metadata)
      throws IOException {
    if (!Files.exists(metadata)) {
      // files without metadata were never verified (the worker stopped in between): take the backup
      // again
      for (String suffix : List.of(".db", ".db.part", ".db.enc", ".db.enc.part", PLAINTEXT_SUFFIX))
        PacedSync.deleteIfExists(dir.resolve(id + suffix));
      return null;
    }
    BackupRecord record = JSON.readValue(metadata.toFile(), BackupRecord.class);
    Path db = storedFile(dir, record);
    if (!Files.exists(db)) {
      throw FailureType.BackupCorrupt.nonRetryable(
          "backup "
              + id
              + " of cluster '"
              + spec.name()
              + "' has metadata "
              + metadata
              + " but its file "
              + db
              + " is gone; restore the file or remove the metadata to take a new backup with this id");
    }
    String sha256 = sha256(db);
    if (!sha256.equals(record.sha256())) {
      throw FailureType.BackupCorrupt.nonRetryable(
          "backup "
              + id
              + " of cluster '"
              + spec.name()
              + "': "
              + db
              + " has SHA-256 "
              + sha256
              + " but its metadata says "
              + record.sha256()
              + "; the file changed after it was verified. Move both files away, or use another backup id");
    }
    return record;
  }

  /**
   * Streams the snapshot into a private plaintext file, encrypting it on the way when there is a
   * key, has etcd's tool verify the plaintext, then checks the encrypted file decrypts to the same
   * bytes before it takes its final name. The plaintext is deleted on every path.
   */
  private BackupRecord snapshot(ClusterInspector inspector, String id, Path dir, BackupKey key)
      throws IOException {
    ClusterSpec spec = inspector.clients().spec();
    MemberStatus source = pickSource(spec, inspector.statuses());
    long revisionBefore = inspector.currentRevision();
    Path plaintext = dir.resolve(id + PLAINTEXT_SUFFIX);
    Path stored = dir.resolve(id + (key == null ? ".db" : ".db.enc"));
    Path part = stored.resolveSibling(stored.getFileName() + ".part");
    String takenAt = Instant.now().toString();
    try {
      PacedSync.deleteIfExists(plaintext);
      Files.createFile(plaintext, PRIVATE);
      SnapshotCipher cipher = key == null ? null : new SnapshotCipher(key);
      long started = System.nanoTime();
      String sha256;
      long streamed;
      if (key == null) {
        sha256 = stream(inspector.clients(), source.name(), plaintext, null);
        streamed = System.nanoTime();
      } else {
        PacedSync.deleteIfExists(part);
        Files.createFile(part, PRIVATE);
        try (FileChannel channel = FileChannel.open(part, StandardOpenOption.WRITE);
            StreamingEncryption encryption =
                StreamingEncryption.start(
                    cipher, new BufferedOutputStream(PacedSync.output(channel)))) {
          sha256 = stream(inspector.clients(), source.name(), plaintext, encryption);
          streamed = System.nanoTime();
          encryption.finish(STALL_TIMEOUT);
          channel.force(true);
        }
      }
      long encrypted = System.nanoTime();
      Verified status = verify(inspector, source, plaintext, revisionBefore);
      long verified = System.nanoTime();
      if (key == null) {
        Files.move(
            plaintext, stored, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } else {
        sha256 = checkDecryption(cipher, part, sha256);
        Files.move(
            part, stored, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      }
      log.info(
          "backup {} of cluster {}: streamed from {} in {} ms, read by etcd's tool in {} ms{}",
          id,
          spec.name(),
          source.name(),
          TimeUnit.NANOSECONDS.toMillis(streamed - started),
          TimeUnit.NANOSECONDS.toMillis(verified - encrypted),
          key == null
              ? ""
              : ", encrypted as it streamed (done "
                  + TimeUnit.NANOSECONDS.toMillis(encrypted - streamed)
                  + " ms after the stream), read back in "
                  + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - verified)
                  + " ms");
      return BackupRecord.builder()
          .id(id)
          .cluster(spec.name())
          .member(source.name())
          .etcdVersion(source.serverVersion())
          .revision(status.revision())
          .hash(status.hash())
          .keyCount(status.totalKey())
          .sizeBytes(Files.size(stored))
          .sha256(sha256)
          .path(stored.toAbsolutePath().toString())
          .takenAt(takenAt)
          .encrypted(key != null)
          .keyId(key == null ? "" : key.id())
          .liveKeys(status.liveKeys())
          .keyspaceHash(status.keyspaceHash())
          .build();
    } catch (RuntimeException | IOException e) {
      PacedSync.deleteIfExists(stored);
      throw e;
    } finally {
      PacedSync.deleteIfExists(plaintext);
      PacedSync.deleteIfExists(part);
    }
  }

  /**
   * Reads the encrypted file back and checks it decrypts to the bytes etcd sent (their SHA-256
   * {@code streamedSha256}, taken as they were streamed); returns the SHA-256 of the encrypted
   * file, taken on that read.
   */
  private static String checkDecryption(
      SnapshotCipher cipher, Path encrypted, String streamedSha256) throws IOException {
    MessageDigest decryptedDigest = digest();
    MessageDigest storedDigest = digest();
    try (InputStream in =
            new DigestInputStream(
                new BufferedInputStream(Files.newInputStream(encrypted)), storedDigest);
        OutputStream out =
            new DigestOutputStream(
                new ProgressOutputStream(OutputStream.nullOutputStream(), "checking decryption"),
                decryptedDigest)) {
      cipher.decrypt(in, out);
      in.transferTo(OutputStream.nullOutputStream());
    } catch (SnapshotDecryptionException e) {
      throw verificationFailed("the encrypted file does not decrypt: " + e.getMessage());
    }
    if (!MessageDigest.isEqual(HexFormat.of().parseHex(streamedSha256), decryptedDigest.digest())) {
      throw verificationFailed(
          "the encrypted file decrypts to other bytes than the snapshot etcd sent");
    }
    return HexFormat.of().formatHex(storedDigest.digest());
  }

  /** A healthy voting follower when there is one, else the healthy leader. */
  private static MemberStatus pickSource(ClusterSpec spec, List<MemberStatus> statuses) {
    return statuses.stream()
        .filter(s -> s.healthy() && !s.learner())
        .min(Comparator.comparing(MemberStatus::leads))
        .orElseThrow(
            () ->
                FailureType.MembersUnreachable.retryable(
                    "no healthy member of cluster '"
                        + spec.name()
                        + "' to take a snapshot from: "
                        + statuses.stream()
                            .map(
                                s ->
                                    s.name()
                                        + " "
                                        + (s.reachable() ? "errors " + s.errors() : "unreachable"))
                            .toList(),
                    null));
  }

  /**
   * Streams the snapshot into {@code part}, and into {@code encryption} too when there is one;
   * returns the file's SHA-256.
   */
  private static String stream(
      EtcdClients clients, String member, Path part, StreamingEncryption encryption)
      throws IOException {
    try (SnapshotFile file = new SnapshotFile(part)) {
      OutputStream sink = encryption == null ? file : new Tee(file, encryption);
      CompletableFuture<Long> done = clients.member(member).getMaintenanceClient().snapshot(sink);
      long lastBytes = -1;
      long lastProgress = System.nanoTime();
      while (true) {
        try {
          done.get(1, TimeUnit.SECONDS);
          break;
        } catch (TimeoutException e) {
          long bytes = file.bytes();
          if (bytes != lastBytes) {
            lastBytes = bytes;
            lastProgress = System.nanoTime();
          } else if (System.nanoTime() - lastProgress > STALL_TIMEOUT.toNanos()) {
            done.cancel(true);
            throw verificationFailed(
                "the snapshot stream from member '"
                    + member
                    + "' stalled at "
                    + bytes
                    + " bytes for "
                    + STALL_TIMEOUT.toSeconds()
                    + " s");
          }
          Heartbeats.beat("snapshot from " + member + ": " + bytes + " bytes");
        } catch (ExecutionException e) {
          // the stream fails as soon as the encryption does: say so rather than blame the member
          if (encryption != null) encryption.throwIfFailed();
          throw FailureType.MembersUnreachable.retryable(
              "snapshot stream from member '"
                  + member
                  + "' failed after "
                  + file.bytes()
                  + " bytes: "
                  + e.getCause().getMessage(),
              e.getCause());
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          done.cancel(true);
          throw new IOException("interrupted while streaming a snapshot", e);
        }
      }
      if (!file.trailerMatches()) {
        throw verificationFailed(
            "the snapshot stream from member '"
                + member
                + "' ("
                + file.bytes()
                + " bytes) does not end with the SHA-256 of its contents: it was cut or corrupted");
      }
      return HexFormat.of().formatHex(file.fileSha256());
    }
  }

  /**
   * Writes to the snapshot file, then to a second stream. Not inside {@link SnapshotFile}: a second
   * stream that waits (the encryption's full buffer) must not hold the file's lock, which closing
   * the file takes.
   */
  private static final class Tee extends OutputStream {
    private final OutputStream first;
    private final OutputStream second;

    Tee(OutputStream first, OutputStream second) {
      this.first = first;
      this.second = second;
    }

    @Override
    public void write(int b) throws IOException {
      write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      first.write(b, off, len);
      second.write(b, off, len);
    }
  }

  /**
   * What etcd's tool read from the snapshot, with the keys the cluster counted alive at its
   * revision (0: compacted) and the source member's hashkv at it (null: compacted).
   */
  private record Verified(SnapshotStatus status, long liveKeys, KeyspaceHash keyspaceHash) {
    long revision() {
      return status.revision();
    }

    long hash() {
      return status.hash();
    }

    long totalKey() {
      return status.totalKey();
    }
  }

  private Verified verify(
      ClusterInspector inspector, MemberStatus source, Path db, long revisionBefore) {
    SnapshotStatus status;
    try {
      status =
          SnapshotStatus.read(releases.binDir(source.serverVersion()), source.serverVersion(), db);
    } catch (IOException | IllegalArgumentException e) {
      throw verificationFailed(
          "etcd "
              + source.serverVersion()
              + "'s tool could not read the snapshot: "
              + e.getMessage());
    }
    // A cluster nobody has written to reports revision 1 while its snapshot's key bucket holds
    // revision 0.
    boolean neverWritten = revisionBefore <= 1 && status.revision() == 0;
    if (status.revision() < revisionBefore
        && !neverWritten
        && !compactedUpTo(inspector, source, status.revision())) {
      throw verificationFailed(
          "the snapshot holds revision "
              + status.revision()
              + " but the cluster was at revision "
              + revisionBefore
              + " before it was taken");
    }
    long liveKeys = 0;
    try {
      liveKeys =
          EtcdClients.await(
                  inspector
                      .clients()
                      .cluster()
                      .getKVClient()
                      .get(
                          ByteSequence.from(new byte[] {0}),
                          GetOption.builder()
                              .withRange(ByteSequence.from(new byte[] {0}))
                              .withCountOnly(true)
                              .withRevision(status.revision())
                              .build()),
                  "key count at revision " + status.revision())
              .getCount();
      if (liveKeys > status.totalKey()) {
        throw verificationFailed(
            "the cluster had "
                + liveKeys
                + " keys at revision "
                + status.revision()
                + " but the snapshot holds only "
                + status.totalKey()
                + " entries");
      }
    } catch (EtcdCallException e) {
      // compacted since the snapshot: the count cannot be compared any more, the other checks stand
      if (!e.getMessage().contains("compacted")) throw e;
      log.warn(
          "backup of cluster {}: revision {} was compacted before its keys could be counted",
          inspector.clients().spec().name(),
          status.revision());
    }
    return new Verified(status, liveKeys, keyspaceHash(inspector, source, status.revision()));
  }

  /**
   * The source member's hashkv at the snapshot's revision, for a restore drill to compare a
   * restored copy with; null when that revision is compacted already (or the cluster never
   * written).
   */
  private static KeyspaceHash keyspaceHash(
      ClusterInspector inspector, MemberStatus source, long revision) {
    if (revision <= 0) return null;
    try {
      HashKVResponse hash =
          EtcdClients.await(
              inspector
                  .clients()
                  .member(source.name())
                  .getMaintenanceClient()
                  .hashKV(
                      EtcdClients.target(inspector.clients().spec().member(source.name())),
                      revision),
              "hashkv of '" + source.name() + "' at revision " + revision);
      return new KeyspaceHash(
          revision, hash.getCompacted(), Integer.toUnsignedLong(hash.getHash()));
    } catch (EtcdCallException e) {
      if (!e.getMessage().contains("compacted")) throw e;
      log.warn(
          "backup of cluster {}: revision {} was compacted before its hashkv was read",
          inspector.clients().spec().name(),
          revision);
      return null;
    }
  }

  /**
   * The file's revision is the highest one left in its key bucket; when the latest writes were
   * deletions already compacted away, it is lower than the cluster's revision although nothing is
   * missing.
   */
  private static boolean compactedUpTo(
      ClusterInspector inspector, MemberStatus source, long revision) {
    long compacted =
        EtcdClients.await(
                inspector
                    .clients()
                    .member(source.name())
                    .getMaintenanceClient()
                    .hashKV(
                        EtcdClients.target(inspector.clients().spec().member(source.name())), 0),
                "compaction revision of '" + source.name() + "'")
            .getCompacted();
    return compacted >= revision;
  }

  private static RuntimeException verificationFailed(String reason) {
    return FailureType.BackupVerificationFailed.nonRetryable("snapshot not kept: " + reason);
  }

  private static void writeAtomically(Path file, byte[] content) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.write(tmp, content);
    try (var channel =
        java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE)) {
      channel.force(true);
    }
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  private static MessageDigest digest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
