package io.etcdrunbooks.activities.inventory;

import static io.etcdrunbooks.activities.inventory.InventoryChangesTest.addition;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.inventory.InventoryRecords;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.workflows.activities.InventoryActivities.RecordRemovalRequest;
import io.etcdrunbooks.workflows.inventory.InventoryRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Changes recorded apart from the operator's inventory file: the file is never written, every
 * reader sees the operator's entry with the record over it (this process's own change at once), a
 * writer that lost the race applies its change again on the other's, the record wins over a later
 * edit of the file's members until it is dropped.
 */
class RecordChangesTest {

  @TempDir Path dir;

  @Test
  void aChangeIsRecordedApartTheFileStaysAsItWasAndEveryReaderSeesTheRecordOverIt()
      throws Exception {
    Path file = inventory();
    String operators = Files.readString(file);
    Records records = new Records();
    InventorySource worker = new InventorySource(file, records, Duration.ofHours(1));
    InventoryActivitiesImpl activities = new InventoryActivitiesImpl(worker);

    assertThat(activities.recordAddition(addition("a", 1))).isTrue();
    assertThat(activities.recordAddition(addition("a", 1))).as("recorded already").isFalse();
    activities.checkWritable(new io.etcdrunbooks.workflows.model.ClusterRef("a"));

    assertThat(Files.readString(file)).isEqualTo(operators);
    assertThat(names(worker, "a")).as("its own change, at once").containsExactly("a-m0", "a-m1");
    assertThat(worker.operators().cluster("a").members()).hasSize(1);
    InventorySource otherWorker = new InventorySource(file, records, Duration.ZERO);
    assertThat(names(otherWorker, "a")).containsExactly("a-m0", "a-m1");
    assertThat(otherWorker.get().cluster("a").backupDir()).isEqualTo("/backups");
    assertThat(records.version("a")).isEqualTo(1);
  }

  @Test
  void aWriterThatLostTheRaceAppliesItsChangeAgainOnTheOthers() throws Exception {
    Path file = inventory();
    Records records = new Records();
    InventorySource source = new InventorySource(file, records, Duration.ZERO);
    InventoryActivitiesImpl other = new InventoryActivitiesImpl(source);
    AtomicInteger replaces = new AtomicInteger();
    InventoryRecords racing =
        new Records(records) {
          @Override
          public Optional<InventoryRecord> replace(
              String cluster, long onVersion, String content, String by) {
            if (replaces.incrementAndGet() == 1) other.recordAddition(addition("a", 2));
            return super.replace(cluster, onVersion, content, by);
          }
        };

    new InventoryActivitiesImpl(new InventorySource(file, racing, Duration.ZERO))
        .recordAddition(addition("a", 1));

    assertThat(replaces).hasValue(2);
    assertThat(names(source, "a")).containsExactly("a-m0", "a-m2", "a-m1");
  }

  @Test
  void theRecordWinsOverALaterEditOfTheFilesMembersUntilItIsDropped() throws Exception {
    Path file = inventory();
    Records records = new Records();
    InventorySource source = new InventorySource(file, records, Duration.ZERO);
    InventoryActivitiesImpl activities = new InventoryActivitiesImpl(source);
    activities.recordAddition(addition("a", 1));
    activities.recordRemoval(new RecordRemovalRequest("a", "a-m0"));

    // the operator edits the file's members (and another field) afterwards
    Files.writeString(
        file,
        Files.readString(file)
            .replace("backupDir: /backups", "backupDir: /other")
            .replace("9.1", "9.7"));

    assertThat(names(source, "a")).containsExactly("a-m1");
    assertThat(source.get().cluster("a").backupDir()).isEqualTo("/other");

    records.replace("a", records.version("a"), "", "operator");
    assertThat(source.get().cluster("a").members())
        .extracting(MemberSpec::host)
        .containsExactly("10.1.9.7");
  }

  @Test
  void aClusterWhoseRecordCannotBeReadIsRefusedSayingWhyAndNotAskedForAgainAtEveryRead()
      throws Exception {
    Path file = inventory();
    AtomicInteger asked = new AtomicInteger();
    InventoryRecords down =
        new Records() {
          @Override
          public InventoryRecord read(String cluster) {
            asked.incrementAndGet();
            throw new IllegalStateException("Temporal is unreachable");
          }
        };
    InventorySource source = new InventorySource(file, down, Duration.ZERO);

    assertThat(source.get().invalidClusters().get("a").problems())
        .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
        .contains("cluster 'a': the runbooks' record in records[a] cannot be read")
        .contains("Temporal is unreachable");
    source.get();
    assertThat(asked).hasValue(1);
  }

  /** An in-memory store of records with the compare-and-swap of the real one. */
  private static class Records implements InventoryRecords {
    private final Map<String, InventoryRecord> records;

    Records() {
      this.records = new HashMap<>();
    }

    Records(Records shared) {
      this.records = shared.records;
    }

    long version(String cluster) {
      return read(cluster).version();
    }

    @Override
    public InventoryRecord read(String cluster) {
      synchronized (records) {
        return records.getOrDefault(cluster, InventoryRecord.none());
      }
    }

    @Override
    public Optional<InventoryRecord> replace(
        String cluster, long onVersion, String content, String by) {
      synchronized (records) {
        InventoryRecord now = read(cluster);
        if (now.version() != onVersion) return Optional.empty();
        InventoryRecord next = new InventoryRecord(content, onVersion + 1);
        records.put(cluster, next);
        return Optional.of(next);
      }
    }

    @Override
    public String location(String cluster) {
      return "records[" + cluster + "]";
    }

    @Override
    public String forgetCommand(String cluster) {
      return "forget " + cluster;
    }
  }

  private static List<String> names(InventorySource source, String cluster) {
    return source.get().cluster(cluster).members().stream().map(MemberSpec::name).toList();
  }

  private Path inventory() throws Exception {
    return Files.writeString(
        dir.resolve("inventory.yaml"),
        """
        releases: {localDir: /releases}
        clusters:
          a:
            ssh: {user: ops, privateKeyFile: /k, knownHostsFile: /kh}
            service: {kind: systemd, unit: etcd.service}
            backupDir: /backups
            backup: {encrypt: false}
            members:
              - {name: a-m0, host: 10.1.9.1, clientUrl: "http://10.1.9.1:2379", peerUrl: "http://10.1.9.1:2380", dataDir: /var/lib/etcd, installDir: /opt/etcd}
        """);
  }
}
