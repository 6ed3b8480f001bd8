package io.etcdrunbooks.activities.backup;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.BackupSpec;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.RetentionResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link BackupActivitiesImpl#applyRetention} on a backup directory; retention touches files only,
 * no cluster needed.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BackupRetentionActivityTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;

  @Test
  void applyRetentionDeletesFileAndMetadataOfWhatThePolicyDropsAndASecondRunNothing()
      throws Exception {
    Instant now = Instant.now();
    for (int i = 0; i < 5; i++) keep("b" + i, now.minus(Duration.ofDays(i)), true);
    keep("other-cluster", now.minus(Duration.ofDays(9)), true, "elsewhere");
    Files.writeString(dir.resolve("notes.json"), "{\"not\": \"a backup\"}");
    BackupActivitiesImpl backups = activities(new BackupSpec(null, "/k", "k", 2, 0));

    RetentionResult first = backups.applyRetention(new ClusterRef("c1"));
    RetentionResult second = backups.applyRetention(new ClusterRef("c1"));

    assertThat(first.kept()).containsExactly("b0", "b1");
    assertThat(first.deleted()).containsExactly("b2", "b3", "b4");
    assertThat(second.kept()).containsExactly("b0", "b1");
    assertThat(second.deleted()).isEmpty();
    assertThat(names())
        .containsExactlyInAnyOrder(
            "b0.db.enc",
            "b0.json",
            "b1.db.enc",
            "b1.json",
            "other-cluster.db.enc",
            "other-cluster.json",
            "notes.json");
  }

  @Test
  void applyRetentionKeepsTheNewestGoodBackupWhenNewerOnesAreBroken() throws Exception {
    Instant now = Instant.now();
    keep("newest-broken", now, false);
    keep("good", now.minus(Duration.ofDays(30)), true);
    keep("older-broken", now.minus(Duration.ofDays(31)), false);
    keep("older-good", now.minus(Duration.ofDays(32)), true);

    RetentionResult result =
        activities(new BackupSpec(false, null, null, 1, 0)).applyRetention(new ClusterRef("c1"));

    assertThat(result.kept()).containsExactly("newest-broken", "good");
    assertThat(result.deleted()).containsExactly("older-broken", "older-good");
    assertThat(result.unverified()).containsExactlyInAnyOrder("newest-broken", "older-broken");
    assertThat(names()).containsExactlyInAnyOrder("newest-broken.json", "good.db.enc", "good.json");
  }

  private BackupActivitiesImpl activities(BackupSpec backup) {
    ClusterSpec spec =
        new ClusterSpec("c1", List.of(), null, null, null, dir.toString(), List.of(), backup);
    return new BackupActivitiesImpl(
        ClusterTargets.etcdOnly(() -> new Inventory(null, Map.of("c1", spec))), null);
  }

  private void keep(String id, Instant takenAt, boolean fileIntact) throws Exception {
    keep(id, takenAt, fileIntact, "c1");
  }

  /** A backup as the activity leaves it; a broken one has lost its file. */
  private void keep(String id, Instant takenAt, boolean fileIntact, String cluster)
      throws Exception {
    Path file = dir.resolve(id + ".db.enc");
    if (fileIntact) Files.write(file, new byte[100]);
    BackupRecord record =
        BackupRecord.builder()
            .id(id)
            .cluster(cluster)
            .member("m1")
            .etcdVersion("3.5.30")
            .revision(10)
            .hash(1)
            .keyCount(20)
            .sizeBytes(100)
            .sha256("00")
            .path(file.toString())
            .takenAt(takenAt.toString())
            .encrypted(true)
            .keyId("k")
            .liveKeys(5)
            .build();
    Files.write(dir.resolve(id + ".json"), JSON.writeValueAsBytes(record));
  }

  private List<String> names() throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).toList();
    }
  }
}
