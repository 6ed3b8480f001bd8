package io.etcdrunbooks.activities.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.InventoryLoader;
import io.etcdrunbooks.inventory.MemberSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two worker processes on one inventory file, each recording 50 members of its own cluster at the
 * same time, while a third reads and parses the file the whole time: no change is lost and no
 * reader ever sees a partial file.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class InventoryTwoProcessesTest {

  private static final int CHANGES = 50;

  @TempDir Path dir;

  @Test
  void twoProcessesChangingTwoClustersLoseNoChangeAndNoReaderSeesAPartialFile() throws Exception {
    Path file = dir.resolve("inventory.yaml");
    Files.writeString(
        file, "releases: {localDir: /releases}\nclusters:\n" + cluster("a", 1) + cluster("b", 2));
    Path go = dir.resolve("go");
    Child a = Child.start(dir, file, "a", go, 1);
    Child b = Child.start(dir, file, "b", go, 2);
    a.awaitReady();
    b.awaitReady();

    List<String> badReads = new CopyOnWriteArrayList<>();
    AtomicInteger reads = new AtomicInteger();
    AtomicBoolean writing = new AtomicBoolean(true);
    Thread reader =
        new Thread(
            () -> {
              while (writing.get()) {
                try {
                  Inventory seen = InventoryLoader.load(file);
                  seen.cluster("a");
                  seen.cluster("b");
                } catch (RuntimeException e) {
                  badReads.add(e.getMessage());
                }
                reads.incrementAndGet();
                // a breath between reads, leaving the two cores to the writers
                LockSupport.parkNanos(2_000_000);
              }
            });
    reader.start();
    Files.createFile(go);
    boolean aDone = a.process().waitFor(45, TimeUnit.SECONDS);
    boolean bDone = b.process().waitFor(45, TimeUnit.SECONDS);
    writing.set(false);
    reader.join();

    assertThat(List.of(aDone, bDone)).containsOnly(true);
    assertThat(List.of(a.process().exitValue(), b.process().exitValue()))
        .as("exit codes; outputs:\n%s\n%s", a.output(), b.output())
        .containsOnly(0);
    assertThat(badReads).as("reads that saw a partial or broken file").isEmpty();
    assertThat(reads.get()).isGreaterThan(10);
    Inventory last = InventoryLoader.load(file);
    assertThat(names(last, "a")).hasSize(CHANGES + 1);
    assertThat(names(last, "b")).hasSize(CHANGES + 1);
  }

  /** A process running {@link InventoryChangeLoop} on one cluster, its output in a log file. */
  private record Child(Process process, Path log) {

    static Child start(Path dir, Path file, String cluster, Path go, int net) throws Exception {
      Path log = dir.resolve(cluster + ".log");
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      Process process =
          new ProcessBuilder(
                  java,
                  "-XX:TieredStopAtLevel=1",
                  "-XX:+UseSerialGC",
                  "-cp",
                  System.getProperty("java.class.path"),
                  InventoryChangeLoop.class.getName(),
                  file.toString(),
                  cluster,
                  String.valueOf(CHANGES),
                  go.toString(),
                  String.valueOf(net))
              .redirectErrorStream(true)
              .redirectOutput(log.toFile())
              .start();
      return new Child(process, log);
    }

    /** Once its classes are loaded it says "ready" and waits for the go file. */
    void awaitReady() throws Exception {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!output().contains("ready")) {
        assertThat(process.isAlive()).as("child alive: %s", output()).isTrue();
        assertThat(System.nanoTime()).as("child ready in 30 s").isLessThan(deadline);
        Thread.sleep(10);
      }
    }

    String output() throws java.io.IOException {
      return Files.readString(log);
    }
  }

  private static List<String> names(Inventory inventory, String cluster) {
    List<String> names = new ArrayList<>();
    for (MemberSpec m : inventory.cluster(cluster).members()) names.add(m.name());
    return names;
  }

  private static String cluster(String name, int net) {
    return """
          NAME:
            ssh: {user: ops, privateKeyFile: /k, knownHostsFile: /kh}
            service: {kind: systemd, unit: etcd.service}
            backupDir: /backups
            backup: {encrypt: false}
            members:
              - {name: NAME-m0, host: 10.NET.9.1, clientUrl: "http://10.NET.9.1:2379", peerUrl: "http://10.NET.9.1:2380", dataDir: /var/lib/etcd, installDir: /opt/etcd}
        """
        .replace("NAME", name)
        .replace("NET", String.valueOf(net));
  }
}
