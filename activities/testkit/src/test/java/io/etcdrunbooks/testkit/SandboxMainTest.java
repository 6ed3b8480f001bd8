package io.etcdrunbooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.InventoryLoader;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * SandboxMain in its own JVM: etcd outlives a killed JVM, and a terminated one stops its members.
 */
@RealEtcd
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SandboxMainTest {

  @TempDir Path tmp;

  @Test
  void etcdSurvivesAKilledSandboxJvm() throws Exception {
    Path dir = tmp.resolve("killed");
    Process jvm = startSandboxJvm(dir);
    long pid = -1;
    try {
      Path inventory = awaitInventoryPath(jvm);
      assertThat(inventory).isEqualTo(dir.resolve("inventory.yaml"));
      pid = Sandbox.etcdPid(dir.resolve("hosts/m1/etc/etcd/etcd.pid"));
      assertThat(pid).isPositive();

      jvm.destroyForcibly().waitFor(30, TimeUnit.SECONDS);

      assertThat(Sandbox.etcdPid(dir.resolve("hosts/m1/etc/etcd/etcd.pid"))).isEqualTo(pid);
    } finally {
      jvm.destroyForcibly();
      if (pid > 0) ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
  }

  @Test
  void aTerminatedSandboxJvmStopsItsMembers() throws Exception {
    Path dir = tmp.resolve("terminated");
    Process jvm = startSandboxJvm(dir);
    long pid = -1;
    try {
      Inventory inventory = InventoryLoader.load(awaitInventoryPath(jvm));
      assertThat(inventory.cluster("demo").members()).hasSize(1);
      pid = Sandbox.etcdPid(dir.resolve("hosts/m1/etc/etcd/etcd.pid"));
      assertThat(pid).isPositive();

      jvm.destroy(); // SIGTERM: the shutdown hook closes the sandbox
      assertThat(jvm.waitFor(30, TimeUnit.SECONDS)).isTrue();

      assertThat(Sandbox.etcdPid(dir.resolve("hosts/m1/etc/etcd/etcd.pid"))).isEqualTo(-1);
    } finally {
      jvm.destroyForcibly();
      if (pid > 0) ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
  }

  private static Process startSandboxJvm(Path dir) throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    return new ProcessBuilder(
            java.toString(),
            "-cp",
            System.getProperty("java.class.path"),
            SandboxMain.class.getName(),
            "--dir",
            dir.toString(),
            "--members",
            "1",
            "--version",
            "3.4.23",
            "--cluster",
            "demo")
        .redirectErrorStream(true)
        .start();
  }

  /** The line SandboxMain prints once the sandbox is up, bounded. */
  private static Path awaitInventoryPath(Process jvm) throws Exception {
    CompletableFuture<Path> path =
        CompletableFuture.supplyAsync(
            () -> {
              try (BufferedReader out =
                  new BufferedReader(new InputStreamReader(jvm.getInputStream()))) {
                for (String line; (line = out.readLine()) != null; ) {
                  if (line.endsWith("inventory.yaml") && !line.contains(" ")) return Path.of(line);
                }
                throw new IllegalStateException(
                    "SandboxMain exited without printing the inventory path");
              } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
              }
            });
    return path.get(60, TimeUnit.SECONDS);
  }
}
