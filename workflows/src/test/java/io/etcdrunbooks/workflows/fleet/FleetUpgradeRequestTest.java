package io.etcdrunbooks.workflows.fleet;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FleetUpgradeRequestTest {

  @Test
  void theDefaultsAreOneCanaryThenWavesBySizeOneClusterAtATimeHaltingAtTheFirstFailure() {
    FleetUpgradeRequest request = FleetUpgradeRequest.of("prod", "", "3.5.30");
    assertThat(request.canaries()).isEqualTo(1);
    assertThat(request.waveLabel()).isEqualTo("size");
    assertThat(request.waveOrder()).containsExactly("small", "medium", "large");
    assertThat(request.concurrency()).isEqualTo(1);
    assertThat(request.failureBudget()).isEqualTo(1);
    assertThat(request.problems()).isEmpty();
  }

  @Test
  void eachWrongFieldIsNamed() {
    FleetUpgradeRequest request =
        new FleetUpgradeRequest("Prod!", "", "3.5", -1, "", null, 0, 0, false, -5, -1, false);
    assertThat(request.problems())
        .hasSize(7)
        .anyMatch(p -> p.contains("fleet 'Prod!'"))
        .anyMatch(p -> p.contains("targetVersion '3.5'"))
        .anyMatch(p -> p.contains("concurrency 0"))
        .anyMatch(p -> p.contains("failureBudget 0"))
        .anyMatch(p -> p.contains("canaries -1"))
        .anyMatch(p -> p.contains("memberTimeoutSeconds"))
        .anyMatch(p -> p.contains("bakeMinutes -1 is not between 0 and 1440"));
  }
}
