package io.etcdrunbooks.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class InventorySourceTest {

  private static final String INVENTORY =
      """
      releases: {localDir: /releases}
      clusters:
        prod:
          ssh: {user: ops, privateKeyFile: /k, knownHostsFile: /kh}
          service: {kind: systemd, unit: etcd.service}
          backupDir: /backups
          members:
            - {name: m1, host: 10.0.0.1, clientUrl: "http://10.0.0.1:2379", peerUrl: "http://10.0.0.1:2380", dataDir: /d, installDir: /i}
      """;

  @TempDir Path dir;

  @Test
  void anotherWriteWithinTheSameTickOfTheFileSystemsClockIsSeen() throws Exception {
    Path file = Files.writeString(dir.resolve("inventory.yaml"), INVENTORY);
    InventorySource source = new InventorySource(file);
    assertThat(source.get().cluster("prod").members().get(0).name()).isEqualTo("m1");
    FileTime tick = Files.getLastModifiedTime(file);

    // another process renames a file of the same size into place within the same tick
    Path next = Files.writeString(dir.resolve("next.yaml"), INVENTORY.replace("m1", "m2"));
    Files.setLastModifiedTime(next, tick);
    Files.move(next, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);

    assertThat(source.get().cluster("prod").members().get(0).name()).isEqualTo("m2");
  }
}
