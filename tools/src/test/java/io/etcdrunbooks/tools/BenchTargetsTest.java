package io.etcdrunbooks.tools;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The bench's verdict: each target named when the runbook's column misses it. */
class BenchTargetsTest {

  private static final WriteProbe.Report CLEAN =
      new WriteProbe.Report(1000, 0, 90, 0, 0, List.of());
  private static final Bench.Column BARE =
      new Bench.Column(2500, Map.of("m1", 600L, "m2", 640L, "m3", 610L), CLEAN);

  @Test
  void aRunbookWithinEveryTargetMissesNone() {
    Bench.Column runbook =
        new Bench.Column(7400, Map.of("m1", 900L, "m2", 950L, "m3", 910L), CLEAN);
    assertThat(Bench.missedTargets(BARE, runbook, Bench.STALL_TARGET_MILLIS)).isEmpty();
  }

  @Test
  void eachMissedTargetIsNamed() {
    Bench.Column runbook =
        new Bench.Column(
            7600,
            Map.of("m1", 900L, "m2", 961L, "m3", 910L),
            new WriteProbe.Report(1000, 2, 200, 0, 1, List.of()));
    assertThat(Bench.missedTargets(BARE, runbook, Bench.STALL_TARGET_MILLIS))
        .containsExactly("member down time", "whole upgrade", "write stall", "lost writes");
  }

  @Test
  void aLostWriteInTheBareColumnFailsTheBenchToo() {
    Bench.Column bare =
        new Bench.Column(
            BARE.totalMillis(), BARE.downMillis(), new WriteProbe.Report(9, 0, 5, 0, 1, List.of()));
    Bench.Column runbook = new Bench.Column(2600, BARE.downMillis(), CLEAN);
    assertThat(Bench.missedTargets(bare, runbook, Bench.STALL_TARGET_MILLIS))
        .containsExactly("lost writes");
  }

  @Test
  void theStallTargetRisesOnlyToOneAndAHalfTimesTheStallOfAConsistencyCheckByHand() {
    assertThat(Bench.stallTargetMillis(5)).isEqualTo(Bench.STALL_TARGET_MILLIS);
    assertThat(Bench.stallTargetMillis(400)).isEqualTo(600);
    Bench.Column runbook =
        new Bench.Column(
            7400,
            Map.of("m1", 900L, "m2", 950L, "m3", 910L),
            new WriteProbe.Report(1000, 0, 590, 0, 0, List.of()));
    assertThat(Bench.missedTargets(BARE, runbook, Bench.stallTargetMillis(400))).isEmpty();
    assertThat(Bench.missedTargets(BARE, runbook, Bench.stallTargetMillis(390)))
        .containsExactly("write stall");
  }
}
