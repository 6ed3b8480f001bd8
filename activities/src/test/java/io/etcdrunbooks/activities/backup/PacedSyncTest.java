package io.etcdrunbooks.activities.backup;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

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
}
