package io.etcdrunbooks.activities.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.inventory.FileInventoryStore;
import io.etcdrunbooks.inventory.InventoryLoader;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.InventoryStore;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.workflows.activities.InventoryActivities.RecordAdditionRequest;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A change recorded by compare-and-swap: applied again on what another writer wrote first. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InventoryChangesTest {

  @TempDir Path dir;

  @Test
  void aWriterThatLostTheRaceAppliesItsChangeAgainOnTopOfTheOthers() throws Exception {
    Path file = inventory("a", "b");
    FileInventoryStore store = new FileInventoryStore(file);
    InventoryActivitiesImpl otherWorker = activities(file, store);
    AtomicInteger writes = new AtomicInteger();
    InventoryStore racing =
        new Delegating(store) {
          @Override
          public boolean writeIfUnchanged(String version, String content) {
            // another worker records its change between this one's read and its write
            if (writes.incrementAndGet() == 1) otherWorker.recordAddition(addition("b", 1));
            return super.writeIfUnchanged(version, content);
          }
        };

    boolean written = activities(file, racing).recordAddition(addition("a", 1));

    assertThat(written).isTrue();
    assertThat(writes).hasValue(2);
    assertThat(names(file, "a")).containsExactly("a-m0", "a-m1");
    assertThat(names(file, "b")).containsExactly("b-m0", "b-m1");
  }

  @Test
  void aChangeTheInventoryAlreadyHasWritesNothing() throws Exception {
    Path file = inventory("a");
    FileInventoryStore store = new FileInventoryStore(file);
    assertThat(activities(file, store).recordAddition(addition("a", 1))).isTrue();
    String version = store.read().version();

    assertThat(activities(file, store).recordAddition(addition("a", 1))).isFalse();

    assertThat(store.read().version()).isEqualTo(version);
  }

  @Test
  void aWriterThatKeepsLosingTheRaceGivesUpWithARetryableErrorHavingWrittenNothing()
      throws Exception {
    Path file = inventory("a");
    String before = Files.readString(file);
    AtomicInteger attempts = new AtomicInteger();
    InventoryStore alwaysChanged =
        new Delegating(new FileInventoryStore(file)) {
          @Override
          public boolean writeIfUnchanged(String version, String content) {
            attempts.incrementAndGet();
            return false;
          }
        };

    assertThatThrownBy(() -> activities(file, alwaysChanged).recordAddition(addition("a", 1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("another writer changed the inventory " + file)
        .hasMessageContaining("cluster 'a'")
        .hasMessageContaining("the activity will try again");
    assertThat(attempts).hasValue(InventoryChanges.ATTEMPTS);
    assertThat(Files.readString(file)).isEqualTo(before);
  }

  @Test
  void aChangeThatWouldMakeTheEntryInvalidIsRefusedAndNotRetried() throws Exception {
    Path file = inventory("a");
    String before = Files.readString(file);
    MemberPlacement clash = addition("a", 1).member();
    MemberPlacement sameUrlAsM0 =
        new MemberPlacement(
            clash.name(),
            clash.host(),
            22,
            "http://10.1.9.1:2380",
            clash.clientUrl(),
            clash.dataDir(),
            clash.installDir(),
            null);

    assertThatThrownBy(
            () ->
                activities(file, new FileInventoryStore(file))
                    .recordAddition(new RecordAdditionRequest("a", sameUrlAsM0)))
        .isInstanceOfSatisfying(
            ApplicationFailure.class,
            f -> {
              assertThat(f.getType()).isEqualTo("InventoryInvalid");
              assertThat(f.isNonRetryable()).isTrue();
            })
        .hasMessageContaining("URL http://10.1.9.1:2380 is used twice");
    assertThat(Files.readString(file)).isEqualTo(before);
  }

  @Test
  void threadsOfOneWorkerChangingClustersTogetherLoseNothing() throws Exception {
    Path file = inventory("a", "b", "c");
    ExecutorService threads = Executors.newFixedThreadPool(3);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (String cluster : List.of("a", "b", "c")) {
        // each thread its own activities and store, as two workers' would be
        InventoryActivitiesImpl activities = activities(file, new FileInventoryStore(file));
        done.add(
            threads.submit(
                () -> {
                  for (int i = 1; i <= 5; i++) activities.recordAddition(addition(cluster, i));
                }));
      }
      for (Future<?> f : done) f.get();
    } finally {
      threads.shutdownNow();
    }
    for (String cluster : List.of("a", "b", "c")) assertThat(names(file, cluster)).hasSize(6);
  }

  private static InventoryActivitiesImpl activities(Path file, InventoryStore store) {
    return new InventoryActivitiesImpl(new InventorySource(file), store);
  }

  static RecordAdditionRequest addition(String cluster, int i) {
    String host = "10." + (cluster.charAt(0) - 'a' + 1) + ".0." + (i + 10);
    return new RecordAdditionRequest(
        cluster,
        new MemberPlacement(
            cluster + "-m" + i,
            host,
            22,
            "http://" + host + ":2380",
            "http://" + host + ":2379",
            "/var/lib/etcd",
            "/opt/etcd",
            null));
  }

  private Path inventory(String... clusters) throws Exception {
    StringBuilder yaml = new StringBuilder("releases: {localDir: /releases}\nclusters:\n");
    for (String c : clusters) {
      String net = String.valueOf(c.charAt(0) - 'a' + 1);
      yaml.append(
          """
            NAME:
              ssh: {user: ops, privateKeyFile: /k, knownHostsFile: /kh}
              service: {kind: systemd, unit: etcd.service}
              backupDir: /backups
              backup: {encrypt: false}
              members:
                - {name: NAME-m0, host: 10.NET.9.1, clientUrl: "http://10.NET.9.1:2379", peerUrl: "http://10.NET.9.1:2380", dataDir: /var/lib/etcd, installDir: /opt/etcd}
          """
              .replace("NAME", c)
              .replace("NET", net));
    }
    return Files.writeString(dir.resolve("inventory.yaml"), yaml);
  }

  private static List<String> names(Path file, String cluster) {
    return InventoryLoader.load(file).cluster(cluster).members().stream()
        .map(MemberSpec::name)
        .toList();
  }

  /** A store passing everything on, for a test to change one call. */
  private static class Delegating implements InventoryStore {
    private final InventoryStore store;

    Delegating(InventoryStore store) {
      this.store = store;
    }

    @Override
    public Versioned read() {
      return store.read();
    }

    @Override
    public boolean writeIfUnchanged(String version, String content) {
      return store.writeIfUnchanged(version, content);
    }

    @Override
    public void checkWritable() {
      store.checkWritable();
    }

    @Override
    public String location() {
      return store.location();
    }
  }
}
