package io.etcdrunbooks.workflows.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.upgrade.FlagTranslations.Flag;
import io.etcdrunbooks.workflows.upgrade.FlagTranslations.ForTarget;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class FlagTranslationsTest {

  private static ForTarget forTarget(String target, String... flags) {
    return FlagTranslations.forTarget(Arrays.stream(flags).map(Flag::parse).toList(), target);
  }

  private static List<String> args(ForTarget to) {
    return to.flags().stream().map(Flag::asArgument).toList();
  }

  @Test
  void experimentalFlagsBecomeOneFeatureGatesFlagAndNewNamesFrom3_6() {
    ForTarget to =
        forTarget(
            "3.6.16",
            "--name=m1",
            "--experimental-initial-corrupt-check=true",
            "--experimental-watch-progress-notify-interval=5s",
            "--experimental-compact-hash-check-enabled",
            "--experimental-txn-mode-write-with-shared-buffer=false");
    assertThat(to.refused()).isEmpty();
    assertThat(args(to))
        .containsExactly(
            "--name=m1",
            "--feature-gates=InitialCorruptCheck=true,CompactHashCheck=true,TxnModeWriteWithSharedBuffer=false",
            "--watch-progress-notify-interval=5s");
    assertThat(to.changes())
        .contains(
            "--experimental-watch-progress-notify-interval=5s -> --watch-progress-notify-interval=5s",
            "--experimental-compact-hash-check-enabled -> (into --feature-gates)");
    assertThat(args(forTarget("3.5.35", "--experimental-initial-corrupt-check=true")))
        .as("3.5 keeps its own names")
        .containsExactly("--experimental-initial-corrupt-check=true");
  }

  @Test
  void experimentalGatesMergeIntoTheMembersOwnFeatureGatesAtItsPlace() {
    ForTarget to =
        forTarget(
            "3.7.3",
            "--experimental-stop-grpc-service-on-defrag=true",
            "--feature-gates=InitialCorruptCheck=true",
            "--experimental-initial-corrupt-check=true");
    assertThat(to.refused()).isEmpty();
    assertThat(args(to))
        .containsExactly("--feature-gates=InitialCorruptCheck=true,StopGRPCServiceOnDefrag=true");

    assertThat(
            forTarget(
                    "3.6.16",
                    "--feature-gates=InitialCorruptCheck=true",
                    "--experimental-initial-corrupt-check=false")
                .refused())
        .as("etcd 3.6 refuses both too; which one the operator meant is theirs to say")
        .singleElement()
        .asString()
        .contains("--experimental-initial-corrupt-check=false", "disagree");
    ForTarget same = forTarget("3.6.16", "--feature-gates=InitialCorruptCheck=true", "--name=m1");
    assertThat(same.changes()).isEmpty();
    assertThat(args(same)).containsExactly("--feature-gates=InitialCorruptCheck=true", "--name=m1");
  }

  @Test
  void backTo3_5FeatureGatesSplitIntoExperimentalFlagsAndNewNamesGoBack() {
    ForTarget to =
        forTarget(
            "3.5.35",
            "--feature-gates=InitialCorruptCheck=true,CompactHashCheck=false,SetMemberLocalAddr=true",
            "--watch-progress-notify-interval=5s",
            "--warning-unary-request-duration=1s",
            "--name=m1");
    assertThat(to.refused()).isEmpty();
    assertThat(args(to))
        .containsExactly(
            "--experimental-initial-corrupt-check=true",
            "--experimental-compact-hash-check-enabled=false",
            "--experimental-watch-progress-notify-interval=5s",
            "--name=m1");
    assertThat(to.notes())
        .anySatisfy(n -> assertThat(n).startsWith("SetMemberLocalAddr=true left out"))
        .anySatisfy(n -> assertThat(n).startsWith("--warning-unary-request-duration=1s left out"));
  }

  @Test
  void backTo3_6GatesOnlyIn3_7AreLeftOutAndUnknownGatesRefused() {
    assertThat(
            args(
                forTarget(
                    "3.6.16", "--feature-gates=FastLeaseKeepAlive=true,InitialCorruptCheck=true")))
        .containsExactly("--feature-gates=InitialCorruptCheck=true");
    assertThat(args(forTarget("3.6.16", "--feature-gates=PriorityRequest=true", "--name=m1")))
        .containsExactly("--name=m1");
    assertThat(forTarget("3.5.35", "--feature-gates=SomeGate=true").refused())
        .singleElement()
        .asString()
        .contains("SomeGate", "does not know");
  }

  @Test
  void aNewNameTheMemberGivesAlreadyWinsOverTheOldOne() {
    assertThat(
            args(
                forTarget(
                    "3.6.16", "--experimental-corrupt-check-time=1m", "--corrupt-check-time=2m")))
        .containsExactly("--corrupt-check-time=2m");
  }

  @Test
  void everyExperimentalFlag3_5TakesIsTranslatedOrRemovedBy3_7() {
    // the 3.5.35 binary's --experimental-* flags (FlagTableAgainstBinariesTest starts them)
    List<String> of35 =
        List.of(
            "--experimental-bootstrap-defrag-threshold-megabytes",
            "--experimental-compact-hash-check-enabled",
            "--experimental-compact-hash-check-time",
            "--experimental-compaction-batch-limit",
            "--experimental-compaction-sleep-interval",
            "--experimental-corrupt-check-time",
            "--experimental-distributed-tracing-address",
            "--experimental-distributed-tracing-instance-id",
            "--experimental-distributed-tracing-sampling-rate",
            "--experimental-distributed-tracing-service-name",
            "--experimental-downgrade-check-time",
            "--experimental-enable-distributed-tracing",
            "--experimental-enable-lease-checkpoint",
            "--experimental-enable-lease-checkpoint-persist",
            "--experimental-initial-corrupt-check",
            "--experimental-memory-mlock",
            "--experimental-peer-skip-client-san-verification",
            "--experimental-snapshot-catchup-entries",
            "--experimental-stop-grpc-service-on-defrag",
            "--experimental-txn-mode-write-with-shared-buffer",
            "--experimental-warning-apply-duration",
            "--experimental-watch-progress-notify-interval");
    for (String flag : of35) {
      assertThat(FlagTranslations.translatable(flag)).as(flag).isTrue();
    }
    assertThat(FlagTranslations.translatable("--experimental-enable-v2v3"))
        .as("removed by 3.6, named by FlagRules")
        .isFalse();
  }
}
