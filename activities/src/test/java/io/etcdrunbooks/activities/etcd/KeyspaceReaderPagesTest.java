package io.etcdrunbooks.activities.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KeyspaceReaderPagesTest {

  private static final int MAX = KeyspaceReader.DEFAULT_PAGE_KEYS;

  @Test
  void largeValuesShrinkTheNextPageToAboutFourMebibytes() {
    // 64 values of 512 KiB: 32 MiB in the first page
    assertThat(KeyspaceReader.nextLimit(64, 64L * (512 << 10), 64, MAX)).isEqualTo(8);
  }

  @Test
  void smallValuesGrowThePageAtMostTwofoldUpToTheMaximum() {
    assertThat(KeyspaceReader.nextLimit(64, 64L * 200, 64, MAX)).isEqualTo(128);
    assertThat(KeyspaceReader.nextLimit(800, 800L * 200, 800, MAX)).isEqualTo(MAX);
  }

  @Test
  void valuesLargerThanAPageStillReadOneKeyAtATime() {
    assertThat(KeyspaceReader.nextLimit(8, 8L * (8 << 20), 8, MAX)).isEqualTo(1);
  }

  @Test
  void aShortLastPageOrAnEmptyOneNeverAsksForNothing() {
    assertThat(KeyspaceReader.nextLimit(64, 0, 0, MAX)).isEqualTo(128);
    assertThat(KeyspaceReader.nextLimit(1, 1L << 30, 1, MAX)).isEqualTo(1);
  }
}
