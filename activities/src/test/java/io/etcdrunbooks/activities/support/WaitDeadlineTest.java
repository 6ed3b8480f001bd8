package io.etcdrunbooks.activities.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class WaitDeadlineTest {

  @Test
  void aRetriedAttemptKeepsTheFirstAttemptsEnd() {
    assertThat(WaitDeadline.after(Duration.ofSeconds(300), 301_000, System.nanoTime()).passed())
        .isTrue();
    assertThat(WaitDeadline.after(Duration.ofSeconds(300), 200_000, System.nanoTime()).passed())
        .isFalse();
  }

  @Test
  void outsideAnActivityItCountsFromNow() {
    assertThat(WaitDeadline.afterSeconds(60).passed()).isFalse();
    assertThat(WaitDeadline.afterSeconds(0).passed()).isTrue();
    assertThat(
            WaitDeadline.after(Duration.ofSeconds(1), 0, System.nanoTime() - 2_000_000_000L)
                .passed())
        .isTrue();
  }
}
