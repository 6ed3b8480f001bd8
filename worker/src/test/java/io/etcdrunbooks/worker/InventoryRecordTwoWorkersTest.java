package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.TemporalInventoryRecords;
import io.etcdrunbooks.testkit.TemporalDevServer;
import io.temporal.client.WorkflowClient;
import io.temporal.worker.WorkerFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
 * Two worker processes sharing one inventory store, the real Temporal server ({@code temporal
 * server start-dev}) with {@code runbooks.inventory-store: temporal}: each records 50 members of
 * its own cluster at the same time while this process reads the inventory (the file with both
 * records over it) the whole time. No change is lost, no read fails or goes back, and the
 * operator's file is never written.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class InventoryRecordTwoWorkersTest {

  private static final int CHANGES = 50;
  private static final String TASK_QUEUE = "etcd-runbooks-records";

  @TempDir Path dir;

  @Test
  void twoWorkersRecordingTwoClustersLoseNoChangeAndNoReadFails() throws Exception {
    Path file = dir.resolve("inventory.yaml");
    Files.writeString(
        file, "releases: {localDir: /releases}\nclusters:\n" + cluster("a", 1) + cluster("b", 2));
    String operators = Files.readString(file);
    try (TemporalDevServer temporal = TemporalDevServer.start(dir.resolve("temporal"))) {
      WorkflowClient client = InventoryRecordLoop.client(temporal.address());
      WorkerFactory reader = InventoryRecordLoop.worker(client, TASK_QUEUE);
      Path go = dir.resolve("go");
      Child a = Child.start(dir, temporal.address(), file, "a", go, 1);
      Child b = Child.start(dir, temporal.address(), file, "b", go, 2);
      try {
        a.awaitReady();
        b.awaitReady();

        // reads the records afresh each time, as another worker's reader would
        InventorySource source =
            new InventorySource(
                file, new TemporalInventoryRecords(client, TASK_QUEUE), Duration.ZERO);
        List<String> badReads = new CopyOnWriteArrayList<>();
        AtomicInteger reads = new AtomicInteger();
        AtomicBoolean writing = new AtomicBoolean(true);
        Thread readerThread =
            new Thread(
                () -> {
                  int[] seen = {1, 1};
                  while (writing.get()) {
                    try {
                      Inventory now = source.get();
                      int[] counts = {
                        now.cluster("a").members().size(), now.cluster("b").members().size()
                      };
                      for (int i = 0; i < 2; i++) {
                        if (counts[i] < seen[i])
                          badReads.add("went back from " + seen[i] + " to " + counts[i]);
                        seen[i] = counts[i];
                      }
                    } catch (RuntimeException e) {
                      badReads.add(String.valueOf(e));
                    }
                    reads.incrementAndGet();
                    LockSupport.parkNanos(2_000_000);
                  }
                });
        readerThread.start();
        long began = System.nanoTime();
        Files.createFile(go);
        boolean done = a.awaitDone(began) && b.awaitDone(began);
        System.out.printf(
            "InventoryRecordTwoWorkersTest: 2 x %d changes in %.1f s, %d reads%n",
            CHANGES, (System.nanoTime() - began) / 1e9, reads.get());
        writing.set(false);
        readerThread.join();

        assertThat(done).as("both done; outputs:\n%s\n%s", a.tail(), b.tail()).isTrue();
        assertThat(badReads).as("reads that failed or went back").isEmpty();
        assertThat(reads.get()).isGreaterThan(10);
        Inventory last = source.get();
        assertThat(names(last, "a")).hasSize(CHANGES + 1).doesNotHaveDuplicates();
        assertThat(names(last, "b")).hasSize(CHANGES + 1).doesNotHaveDuplicates();
        assertThat(Files.readString(file)).as("the operator's file").isEqualTo(operators);
        assertThat(source.operators().cluster("a").members()).hasSize(1);
        Files.createFile(dir.resolve("stop"));
        assertThat(a.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(b.process().waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(List.of(a.process().exitValue(), b.process().exitValue()))
            .as("exit codes; outputs:\n%s\n%s", a.tail(), b.tail())
            .containsOnly(0);
      } finally {
        a.process().destroyForcibly();
        b.process().destroyForcibly();
        reader.shutdownNow();
      }
    }
  }

  /** A process running {@link InventoryRecordLoop} on one cluster, its output in a log file. */
  private record Child(Process process, Path log) {

    static Child start(Path dir, String address, Path file, String cluster, Path go, int net)
        throws Exception {
      Path log = dir.resolve(cluster + ".log");
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      Process process =
          new ProcessBuilder(
                  java,
                  "-XX:TieredStopAtLevel=1",
                  "-XX:+UseSerialGC",
                  "-cp",
                  System.getProperty("java.class.path"),
                  InventoryRecordLoop.class.getName(),
                  address,
                  TASK_QUEUE,
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

    /** Once its worker polls it says "ready" and waits for the go file. */
    void awaitReady() throws Exception {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (!output().contains("ready")) {
        assertThat(process.isAlive()).as("child alive: %s", output()).isTrue();
        assertThat(System.nanoTime()).as("child ready in 60 s").isLessThan(deadline);
        Thread.sleep(10);
      }
    }

    /** Its changes recorded within 90 s of {@code began}. */
    boolean awaitDone(long began) throws Exception {
      long deadline = began + TimeUnit.SECONDS.toNanos(90);
      while (!output().contains("done")) {
        if (!process.isAlive() || System.nanoTime() > deadline) return false;
        Thread.sleep(20);
      }
      return true;
    }

    String output() throws java.io.IOException {
      return Files.readString(log);
    }

    String tail() throws java.io.IOException {
      String all = output();
      return all.substring(Math.max(0, all.length() - 4000));
    }
  }

  private static List<String> names(Inventory inventory, String cluster) {
    return inventory.cluster(cluster).members().stream().map(MemberSpec::name).toList();
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
