package io.etcdrunbooks.workflows.recover;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.model.MemberStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Which answering member a recovery rebuilds the cluster from. */
class RecoverSurvivorTest {

  private static MemberStatus member(String name, boolean learner, long applied) {
    return new MemberStatus(
        name, name.hashCode(), true, false, "3.5.30", learner, 0, applied, applied, 0, List.of());
  }

  private static MemberStatus lost(String name) {
    return new MemberStatus(name, 0, false, false, "", false, 0, 0, 0, 0, List.of("unreachable"));
  }

  @Test
  void aLearnerAheadOfTheVotersIsNeverTheSurvivor() {
    List<MemberStatus> members =
        List.of(member("m1", false, 100), member("m2", true, 120), lost("m3"), lost("m4"));

    assertThat(RecoverDiscovery.bestSurvivor(members, "", true))
        .map(MemberStatus::name)
        .contains("m1");
  }

  @Test
  void withOnlyALearnerAnsweringThereIsNoServingSurvivor() {
    List<MemberStatus> members = List.of(lost("m1"), member("m2", true, 120), lost("m3"));

    assertThat(RecoverDiscovery.bestSurvivor(members, "", true)).isEmpty();
  }

  @Test
  void amongVotersTheHighestAppliedIndexWinsAndInventoryOrderBreaksTies() {
    List<MemberStatus> members =
        List.of(member("m1", false, 90), member("m2", false, 100), member("m3", false, 100));

    assertThat(RecoverDiscovery.bestSurvivor(members, "", true))
        .map(MemberStatus::name)
        .contains("m2");
  }
}
