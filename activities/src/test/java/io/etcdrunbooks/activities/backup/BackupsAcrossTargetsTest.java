package io.etcdrunbooks.activities.backup;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.inventory.BackupSpec;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which target a restore's backup comes from ({@link BackupsAcrossTargets}), with two targets that
 * keep their backups in memory: the newest verified wins, a tie goes to the worker, then to the
 * first target; an explicit id missing on the worker is looked for on each target in turn.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BackupsAcrossTargetsTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant T = Instant.parse("2026-11-27T06:00:00Z");

  @TempDir Path dir;

  private final FakeTarget offsite = new FakeTarget("off-site");
  private final FakeTarget bucket = new FakeTarget("bucket");

  @Test
  void onATieTheWorkersCopyIsUsedAndNothingIsDownloaded() throws Exception {
    keepOnWorker(record("b1", T));
    offsite.backups.add(remote(record("b1", T), true));
    bucket.backups.add(remote(record("b1", T), true));

    across().bringToWorker(spec(), "latest", "");

    assertThat(offsite.fetched).isEmpty();
    assertThat(bucket.fetched).isEmpty();
  }

  @Test
  void aNewerBackupElsewhereIsFetchedFromTheFirstTargetThatHasIt() throws Exception {
    keepOnWorker(record("b1", T));
    offsite.backups.add(remote(record("b2", T.plusSeconds(60)), true));
    bucket.backups.add(remote(record("b2", T.plusSeconds(60)), true));
    // newer still, but its file is not whole there: not verified, not a candidate
    bucket.backups.add(remote(record("b3", T.plusSeconds(120)), false));

    across().bringToWorker(spec(), "latest", "");

    assertThat(offsite.fetched).containsExactly("b2");
    assertThat(bucket.fetched).isEmpty();
  }

  @Test
  void theBucketsNewerBackupWinsWhenTheOthersAreOlder() throws Exception {
    keepOnWorker(record("b1", T));
    offsite.backups.add(remote(record("b1", T), true));
    bucket.backups.add(remote(record("b2", T.plusSeconds(60)), true));

    across().bringToWorker(spec(), "", "");

    assertThat(bucket.fetched).containsExactly("b2");
  }

  @Test
  void anExplicitIdIsLookedForOnEachTargetInTurnPastOneThatCannotBeReached() {
    offsite.unreachable = true;
    bucket.backups.add(remote(record("b0", T), true));

    across().bringToWorker(spec(), "b0", "");

    assertThat(bucket.fetched).containsExactly("b0");
  }

  private BackupsAcrossTargets across() {
    return new BackupsAcrossTargets(List.of(offsite, bucket));
  }

  private ClusterSpec spec() {
    return new ClusterSpec(
        "c1",
        List.of(),
        null,
        null,
        null,
        dir.toString(),
        List.of(),
        new BackupSpec(null, "/k", "k", null, null));
  }

  private BackupRecord record(String id, Instant takenAt) {
    return BackupRecord.builder()
        .id(id)
        .cluster("c1")
        .member("m1")
        .etcdVersion("3.5.30")
        .revision(10)
        .hash(1)
        .keyCount(20)
        .sizeBytes(100)
        .sha256("00")
        .path(dir.resolve(id + ".db.enc").toString())
        .takenAt(takenAt.toString())
        .encrypted(true)
        .keyId("k")
        .liveKeys(5)
        .build();
  }

  private void keepOnWorker(BackupRecord r) throws Exception {
    Files.write(Path.of(r.path()), new byte[100]);
    Files.write(dir.resolve(r.id() + ".json"), JSON.writeValueAsBytes(r));
  }

  private static RemoteBackup remote(BackupRecord r, boolean verified) {
    try {
      return new RemoteBackup(r, JSON.writeValueAsString(r), verified);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** A target holding its backups in memory; a fetch writes the backup into the directory. */
  private final class FakeTarget implements RemoteTarget {
    final String name;
    final List<RemoteBackup> backups = new ArrayList<>();
    final List<String> fetched = new ArrayList<>();
    boolean unreachable;

    FakeTarget(String name) {
      this.name = name;
    }

    @Override
    public boolean configuredFor(ClusterSpec spec) {
      return true;
    }

    @Override
    public String where(ClusterSpec spec) {
      return name;
    }

    @Override
    public List<RemoteBackup> list(ClusterSpec spec) {
      if (unreachable)
        throw ApplicationFailure.newFailure(name + " cannot be reached", "HostUnreachable");
      return backups;
    }

    @Override
    public void delete(ClusterSpec spec, RemoteBackup backup) {
      backups.remove(backup);
    }

    @Override
    public boolean fetch(ClusterSpec spec, String id, Path into) {
      for (RemoteBackup b : list(spec)) {
        if (b.record().id().equals(id)) {
          try {
            keepOnWorker(b.record());
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
          fetched.add(id);
          return true;
        }
      }
      return false;
    }
  }
}
