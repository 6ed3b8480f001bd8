package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micronaut.context.ApplicationContext;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * runbooks.activities.wait-heartbeat-timeout-seconds is read, 20 s (the waits' own) by default, and
 * refused under 5 s, which the waits' heartbeats could not keep.
 */
class ActivitiesConfigTest {

  @Test
  void theWaitHeartbeatTimeoutIsReadTwentySecondsByDefaultAndRefusedUnderFive() {
    try (ApplicationContext context =
        ApplicationContext.run(Map.of("runbooks.activities.wait-heartbeat-timeout-seconds", "7"))) {
      assertThat(context.getBean(ActivitiesConfig.class).waitHeartbeatTimeout())
          .isEqualTo(Duration.ofSeconds(7));
    }
    try (ApplicationContext context = ApplicationContext.run()) {
      assertThat(context.getBean(ActivitiesConfig.class).waitHeartbeatTimeout())
          .isEqualTo(Duration.ofSeconds(20));
    }
    assertThatThrownBy(() -> new ActivitiesConfig(4))
        .hasMessageContaining("runbooks.activities.wait-heartbeat-timeout-seconds is 4")
        .hasMessageContaining("at least 5");
  }
}
