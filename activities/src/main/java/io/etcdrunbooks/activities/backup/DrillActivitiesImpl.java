package io.etcdrunbooks.activities.backup;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.maintenance.HashKVResponse;
import io.etcd.jetcd.options.CompactOption;
import io.etcd.jetcd.options.GetOption;
import io.etcdrunbooks.activities.etcd.EtcdCallException;
import io.etcdrunbooks.activities.etcd.EtcdClients;
import io.etcdrunbooks.activities.host.SnapshotRestore;
import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.workflows.activities.DrillActivities;
import io.etcdrunbooks.workflows.activities.RestoreActivities.CheckBackupRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.KeyspaceHash;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link DrillActivities}: the backup restored into {@code <backupDir>/.restore-drill-<drillId>} on
 * the worker and served by a {@link ThrowawayEtcd}; the cluster's hosts are never reached.
 */
public final class DrillActivitiesImpl implements DrillActivities {

  private static final Logger log = LoggerFactory.getLogger(DrillActivitiesImpl.class);
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
  private static final Duration RESTORE_TIMEOUT = Duration.ofMinutes(10);
  private static final Duration START_TIMEOUT = Duration.ofMinutes(2);
  private static final ByteSequence ALL = ByteSequence.from(new byte[] {0});
  private static final List<String> TARGETS =
      List.of(NewestBackups.LOCAL, NewestBackups.OFFSITE, NewestBackups.OBJECT_STORE);

  private final ClusterTargets targets;
  private final ReleaseStore releases;
  private final RestoreActivitiesImpl restore;
  private final DrillCopies copies;

  public DrillActivitiesImpl(ClusterTargets targets, ReleaseStore releases) {
    this.targets = targets;
    this.releases = releases;
    this.restore = new RestoreActivitiesImpl(targets, releases);
    this.copies = new DrillCopies(targets.ssh());
  }

  @Override
  public List<TargetBackup> newestPerTarget(DrillRequest request) {
    return copies.newest(targets.cluster(request.cluster()));
  }

  @Override
  public DrillBackup checkBackup(DrillRequest request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    if (request.fromOneTarget())
      return new DrillBackup(
          restore.checkStored(source(spec, request), request.backupId(), ""), request.target());
    String id = request.backupId();
    boolean local =
        id == null
            || id.isBlank()
            || id.equals("latest")
            || Files.exists(Path.of(spec.backupDir()).resolve(id + ".json"));
    // the restore's own check, download from the object store included
    BackupRecord backup =
        restore.checkBackup(new CheckBackupRequest(request.cluster(), id == null ? "" : id, ""));
    return new DrillBackup(backup, local ? "local" : "object_store");
  }

  @Override
  public DrillMeasurement restoreAndMeasure(DrillRequest request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    ClusterSpec source = request.fromOneTarget() ? source(spec, request) : spec;
    BackupRecord backup = RestoreActivitiesImpl.find(source, request.backupId(), "");
    Path scratch = scratch(spec, request);
    try {
      removeScratch(scratch);
      Files.createDirectories(
          scratch,
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      String peerUrl = "http://127.0.0.1:" + ThrowawayEtcd.freePort();
      String tool = restoreInto(source, backup, scratch, peerUrl);
      try (ThrowawayEtcd etcd =
          ThrowawayEtcd.start(
              releases.binDir(backup.etcdVersion()), scratch, ThrowawayEtcd.freePort(), peerUrl)) {
        etcd.awaitHealthy(START_TIMEOUT);
        DrillMeasurement measured = measure(etcd, backup, tool);
        log.info(
            "restore drill {} of backup {} of cluster {}: revision {}, {} live keys, hashkv {}",
            request.drillId(),
            backup.id(),
            spec.name(),
            measured.revision(),
            measured.liveKeys(),
            measured.keyspaceHash());
        return measured;
      }
    } catch (IOException | EtcdCallException e) {
      throw FailureType.RestoreDrillFailed.nonRetryable(
          "restore drill of backup "
              + backup.id()
              + " of cluster '"
              + spec.name()
              + "': "
              + e.getMessage());
    } finally {
      try {
        removeScratch(scratch);
      } catch (IOException e) {
        log.warn("restore drill scratch {} not removed: {}", scratch, e.getMessage());
      }
    }
  }

  @Override
  public boolean cleanUp(DrillRequest request) {
    Path scratch = scratch(targets.cluster(request.cluster()), request);
    try {
      boolean removed = removeScratch(copyDir(scratch));
      return removeScratch(scratch) || removed;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove " + scratch + ": " + e.getMessage(), e);
    }
  }

  @Override
  public void recordResult(DrillOutcome outcome) {
    ClusterSpec spec = targets.cluster(outcome.cluster());
    String lastSuccess =
        outcome.passed()
            ? outcome.finishedAt()
            : LastDrill.read(spec).map(LastDrill::lastSuccessAt).orElse("");
    try {
      new LastDrill(
              spec.name(),
              outcome.backupId(),
              outcome.target(),
              outcome.passed(),
              outcome.finishedAt(),
              lastSuccess)
          .write(spec);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot record the restore drill of cluster '" + spec.name() + "': " + e.getMessage(), e);
    }
  }

  private static Path scratch(ClusterSpec spec, DrillRequest request) {
    if (request.drillId() == null || !ID.matcher(request.drillId()).matches())
      throw FailureType.InvalidRequest.nonRetryable(
          "restore drill id '" + request.drillId() + "' must be a plain file name");
    String name = ".restore-drill-" + request.drillId();
    if (request.fromOneTarget()) {
      if (!TARGETS.contains(request.target()))
        throw FailureType.InvalidRequest.nonRetryable(
            "restore drill target '" + request.target() + "' must be one of " + TARGETS);
      name += "-" + request.target();
    }
    return Path.of(spec.backupDir()).resolve(name);
  }

  /**
   * Where a remote target's copy is fetched for the drill: beside its scratch directory (which each
   * restore attempt empties), in no directory retention reads.
   */
  private static Path copyDir(Path scratch) {
    return scratch.resolveSibling(scratch.getFileName() + ".copy");
  }

  /** The cluster as the drill reads the request's target's copy: fetched from there if remote. */
  private ClusterSpec source(ClusterSpec spec, DrillRequest request) {
    if (request.backupId() == null || !ID.matcher(request.backupId()).matches())
      throw FailureType.InvalidRequest.nonRetryable(
          "backup id '" + request.backupId() + "' must be a plain file name");
    return copies.copyOn(
        spec, request.target(), request.backupId(), copyDir(scratch(spec, request)));
  }

  /**
   * Restores the decrypted snapshot into {@code scratch/data} as member "drill" with the backup's
   * version's tool, the plaintext deleted right after; returns the tool and its version.
   */
  private String restoreInto(ClusterSpec spec, BackupRecord backup, Path scratch, String peerUrl)
      throws IOException {
    boolean etcdutl = EtcdVersion.parse(backup.etcdVersion()).shipsEtcdutl();
    Path tool = releases.binDir(backup.etcdVersion()).resolve(etcdutl ? "etcdutl" : "etcdctl");
    Path plaintext = RestoreActivitiesImpl.decrypt(spec, backup);
    try {
      MemberSpec drill =
          new MemberSpec("drill", "127.0.0.1", 0, "", peerUrl, "", "", scratch.toString());
      String script =
          "set -e\n"
              + SnapshotRestore.command(
                  tool.toString(),
                  plaintext.toString(),
                  false,
                  drill,
                  "drill=" + peerUrl,
                  "restore-drill",
                  scratch.resolve("data").toString(),
                  0);
      ProcessBuilder builder = new ProcessBuilder("sh", "-c", script);
      builder.redirectErrorStream(true);
      Path output = scratch.resolve("restore.log");
      builder.redirectOutput(output.toFile());
      Process process = builder.start();
      long deadline = System.nanoTime() + RESTORE_TIMEOUT.toNanos();
      try {
        while (!process.waitFor(1, TimeUnit.SECONDS)) {
          if (System.nanoTime() > deadline)
            throw new IOException(
                tool
                    + " snapshot restore did not finish within "
                    + RESTORE_TIMEOUT.toMinutes()
                    + " min");
          Heartbeats.beat("restoring backup " + backup.id() + " with " + tool.getFileName());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while restoring", e);
      } finally {
        process.destroyForcibly();
      }
      if (process.exitValue() != 0)
        throw new IOException(
            tool.getFileName()
                + " (etcd "
                + backup.etcdVersion()
                + ") snapshot restore failed (exit "
                + process.exitValue()
                + "): "
                + Files.readString(output, StandardCharsets.UTF_8).strip());
      return tool.getFileName() + " " + backup.etcdVersion();
    } finally {
      Files.deleteIfExists(plaintext);
    }
  }

  /**
   * What the throwaway etcd serves at the backup's revision. When its revision is below the
   * backup's there is nothing at that revision to read: only the revision is returned (live keys
   * -1).
   */
  private static DrillMeasurement measure(ThrowawayEtcd etcd, BackupRecord backup, String tool) {
    try (Client client = Client.builder().endpoints(etcd.clientUrl).build()) {
      long revision =
          EtcdClients.await(
                  client.getKVClient().get(ALL, GetOption.builder().withCountOnly(true).build()),
                  "revision of the throwaway etcd")
              .getHeader()
              .getRevision();
      if (revision < backup.revision()) return new DrillMeasurement(revision, -1, null, tool);
      long liveKeys =
          EtcdClients.await(
                  client
                      .getKVClient()
                      .get(
                          ALL,
                          GetOption.builder()
                              .withRange(ALL)
                              .withCountOnly(true)
                              .withRevision(backup.revision())
                              .build()),
                  "live keys at revision " + backup.revision())
              .getCount();
      KeyspaceHash expected = backup.keyspaceHash();
      if (expected == null) return new DrillMeasurement(revision, liveKeys, null, tool);
      String target = etcd.clientUrl.substring("http://".length());
      HashKVResponse hash =
          EtcdClients.await(
              client.getMaintenanceClient().hashKV(target, expected.revision()),
              "hashkv at revision " + expected.revision());
      if (hash.getCompacted() < expected.compactRevision()) {
        // the cluster compacted between the snapshot and its hashkv: the copy is compacted alike
        EtcdClients.await(
            client
                .getKVClient()
                .compact(
                    expected.compactRevision(),
                    CompactOption.builder().withCompactPhysical(true).build()),
            "compaction to revision " + expected.compactRevision());
        hash =
            EtcdClients.await(
                client.getMaintenanceClient().hashKV(target, expected.revision()),
                "hashkv at revision " + expected.revision());
      }
      return new DrillMeasurement(
          revision,
          liveKeys,
          new KeyspaceHash(
              expected.revision(), hash.getCompacted(), Integer.toUnsignedLong(hash.getHash())),
          tool);
    }
  }

  /** Stops a leftover throwaway etcd and deletes the scratch directory; whether there was one. */
  private static boolean removeScratch(Path scratch) throws IOException {
    if (!Files.exists(scratch)) return false;
    if (ThrowawayEtcd.stopLeftover(scratch))
      log.info("restore drill: stopped the throwaway etcd an earlier attempt left in {}", scratch);
    try (Stream<Path> walk = Files.walk(scratch)) {
      for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
    }
    return true;
  }
}
