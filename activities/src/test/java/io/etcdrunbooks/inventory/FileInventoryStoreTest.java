package io.etcdrunbooks.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class FileInventoryStoreTest {

  @TempDir Path dir;

  @Test
  void aWriteNamingAVersionThatIsNoLongerThereChangesNothing() throws Exception {
    Path file = Files.writeString(dir.resolve("inventory.yaml"), "one\n");
    FileInventoryStore store = new FileInventoryStore(file);
    InventoryStore.Versioned first = store.read();

    assertThat(store.writeIfUnchanged(first.version(), "two\n")).isTrue();
    assertThat(store.writeIfUnchanged(first.version(), "three\n")).isFalse();

    assertThat(store.read().content()).isEqualTo("two\n");
    assertThat(store.read().version()).isNotEqualTo(first.version());
    assertThat(Files.readString(dir.resolve("inventory.yaml.previous"))).isEqualTo("one\n");
  }

  @Test
  void aWriteKeepsTheFilesPermissionsAndLeavesNoTemporaryFileBehind() throws Exception {
    Path file = Files.writeString(dir.resolve("inventory.yaml"), "one\n");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r-----"));
    FileInventoryStore store = new FileInventoryStore(file);

    assertThat(store.writeIfUnchanged(store.read().version(), "two\n")).isTrue();

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-r-----");
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(f -> f.getFileName().toString()))
          .containsExactlyInAnyOrder(
              "inventory.yaml", "inventory.yaml.previous", ".inventory.yaml.lock");
    }
  }
}
