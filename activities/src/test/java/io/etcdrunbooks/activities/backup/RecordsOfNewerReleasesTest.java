package io.etcdrunbooks.activities.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.BackupSpec;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.workflows.common.RunbookPayloads;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.KeyspaceHash;
import io.etcdrunbooks.workflows.restore.RestoreRequest;
import io.temporal.common.converter.DataConverter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Rolling the worker: for a while two releases share the backup directory (and the off-site host
 * and the bucket, read the same way). What the newer one stored, with a field the older one does
 * not know, is still read by the older one, which logs the field once; a runbook request with such
 * a field is still refused.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class RecordsOfNewerReleasesTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant TAKEN = Instant.parse("2026-11-27T05:00:00Z");

  @TempDir Path dir;

  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
  private final Logger logger = (Logger) LoggerFactory.getLogger(FieldsOfNewerReleases.class);

  @BeforeEach
  void listen() {
    logs.start();
    logger.addAppender(logs);
  }

  @AfterEach
  void stopListening() {
    logger.detachAppender(logs);
  }

  @Test
  void aBackupRecordWithAFieldThisReleaseDoesNotKnowIsKeptCountedAndRestorable() throws Exception {
    Path file = Files.write(dir.resolve("b1.db.enc"), new byte[100]);
    ObjectNode record =
        JSON.valueToTree(
            BackupRecord.builder()
                .id("b1")
                .cluster("c1")
                .member("m1")
                .etcdVersion("3.5.30")
                .revision(10)
                .hash(1)
                .keyCount(20)
                .sizeBytes(100)
                .sha256(StoredBackups.sha256(file))
                .path(file.toString())
                .takenAt(TAKEN.toString())
                .encrypted(true)
                .keyId("k")
                .liveKeys(5)
                .keyspaceHash(new KeyspaceHash(10, 2, 77))
                .build());
    record.putObject("verifiedWithNewerTool").put("etcdutl", "3.7.3");
    ((ObjectNode) record.get("keyspaceHash")).put("hashedWithNewerTool", true);
    Files.write(dir.resolve("b1.json"), JSON.writeValueAsBytes(record));
    ClusterSpec spec = spec();

    BackupRecord restorable = RestoreActivitiesImpl.find(spec, "b1", "");
    BackupRecord newest = RestoreActivitiesImpl.find(spec, "latest", "");
    Map<String, Instant> counted = new NewestBackups(null).of(spec);
    List<String> kept =
        new BackupActivitiesImpl(
                ClusterTargets.etcdOnly(() -> new Inventory(null, Map.of("c1", spec))), null)
            .applyRetention(new ClusterRef("c1"))
            .kept();

    assertThat(restorable.id()).isEqualTo("b1");
    assertThat(restorable.keyspaceHash()).isEqualTo(new KeyspaceHash(10, 2, 77));
    assertThat(newest).isEqualTo(restorable);
    assertThat(counted).containsEntry(NewestBackups.LOCAL, TAKEN);
    assertThat(kept).containsExactly("b1");
    // four reads, one line per field
    assertThat(logs.list.stream().map(ILoggingEvent::getFormattedMessage))
        .filteredOn(m -> m.contains("verifiedWithNewerTool"))
        .hasSize(1)
        .allMatch(m -> m.contains("BackupRecord") && m.contains("ignored"));
    assertThat(logs.list.stream().map(ILoggingEvent::getFormattedMessage))
        .filteredOn(m -> m.contains("hashedWithNewerTool"))
        .hasSize(1)
        .allMatch(m -> m.contains("KeyspaceHash"));
  }

  @Test
  void theLastDrillWithAFieldThisReleaseDoesNotKnowIsStillRead() throws Exception {
    ObjectNode drill =
        JSON.valueToTree(
            new LastDrill(
                "c1", "b1", "local", true, TAKEN.toString(), TAKEN.plusSeconds(60).toString()));
    drill.put("drilledOnNewerEtcd", "3.7.3");
    Files.write(dir.resolve(LastDrill.FILE), JSON.writeValueAsBytes(drill));

    assertThat(LastDrill.read(spec()))
        .hasValueSatisfying(d -> assertThat(d.passed()).isTrue())
        .hasValueSatisfying(d -> assertThat(d.backupId()).isEqualTo("b1"));
  }

  @Test
  void aRunbookRequestWithAFieldThisReleaseDoesNotKnowIsStillRefused() {
    DataConverter converter = RunbookPayloads.converter();
    ObjectNode request =
        JSON.valueToTree(
            RestoreRequest.of(
                    "c1", "b1", io.etcdrunbooks.workflows.common.RunbookOptions.defaults())
                .acknowledgingDataLoss());
    request.put("verifiedWithNewerTool", true);

    assertThatThrownBy(
            () ->
                converter.fromPayload(
                    converter.toPayload(request).orElseThrow(),
                    RestoreRequest.class,
                    RestoreRequest.class))
        .isInstanceOf(RunbookPayloads.InputRejected.class)
        .hasMessageContaining("'verifiedWithNewerTool'");
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
        new BackupSpec(false, null, null, 5, 0));
  }
}
