package io.etcdrunbooks.activities.backup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PacedSyncTest {

  @Test
  void forcesOnceEveryEightMebibytesWritten() throws Exception {
    AtomicInteger forces = new AtomicInteger();
    PacedSync sync = new PacedSync(forces::incrementAndGet);

    for (int i = 0; i < 7; i++) sync.wrote(1 << 20);
    assertThat(forces).hasValue(0);
    sync.wrote(1 << 20);
    assertThat(forces).hasValue(1);
    for (int i = 0; i < 12; i++) sync.wrote(1 << 20);
    assertThat(forces).hasValue(2);
    sync.wrote(PacedSync.EVERY * 3);
    assertThat(forces).hasValue(3);
  }

  @Test
  void deletesALargeFileInStepsAndSaysWhetherThereWasOne(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("snapshot.plaintext.part");
    try (FileChannel channel =
        FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.allocate(1), PacedSync.EVERY * 3 + 5);
    }

    assertThat(PacedSync.deleteIfExists(file)).isTrue();
    assertThat(file).doesNotExist();
    assertThat(PacedSync.deleteIfExists(file)).isFalse();
  }
}
