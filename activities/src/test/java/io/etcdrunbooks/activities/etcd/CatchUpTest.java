package io.etcdrunbooks.activities.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.model.MemberStatus;
import java.util.List;
import org.junit.jupiter.api.Test;

class CatchUpTest {

  private static MemberStatus member(String name, long committed, long applied) {
    return new MemberStatus(
        name, 2, true, true, "3.5.16", false, 1, committed, applied, 1, List.of());
  }

  @Test
  void aMemberIsReadyOnlyOnceItAppliedWhatTheLeaderHadCommittedWhenTheWaitBegan() {
    MemberReadiness.CatchUp catchUp = new MemberReadiness.CatchUp();
    MemberStatus leader = member("m1", 5_000, 5_000);

    assertThat(catchUp.problem(member("m2", 4_995, 4_995), leader))
        .as("5 entries behind was 'ready' under the old fixed lag of 10")
        .contains("applied index 4995", "index 5000", "leader 'm1'");
    // the leader moves on; the target does not, so the member is not chased forever
    MemberStatus busyLeader = member("m1", 9_000, 9_000);
    assertThat(catchUp.problem(member("m2", 6_000, 5_000), busyLeader)).isNull();
  }

  @Test
  void onceTheTargetIsFixedTheLeaderNeedNotBeReadAgain() {
    MemberReadiness.CatchUp catchUp = new MemberReadiness.CatchUp();
    assertThat(catchUp.hasTarget()).isFalse();
    assertThat(catchUp.problem(member("m2", 90, 90), member("m1", 100, 100))).isNotNull();
    assertThat(catchUp.hasTarget()).isTrue();
    assertThat(catchUp.applying()).as("healthy, only entries left to apply").isTrue();

    assertThat(catchUp.problem(member("m2", 99, 99), null)).contains("behind index 100");
    assertThat(catchUp.problem(member("m2", 100, 100), null)).isNull();
    assertThat(catchUp.applying()).isFalse();
  }

  @Test
  void theAppliedIndexCountsNotTheCommittedOne() {
    MemberReadiness.CatchUp catchUp = new MemberReadiness.CatchUp();
    MemberStatus leader = member("m1", 100, 100);
    assertThat(catchUp.problem(member("m2", 100, 40), leader)).contains("applied index 40");
  }

  @Test
  void etcd33ReportsNoAppliedIndexSoItsRaftIndexIsUsed() {
    MemberReadiness.CatchUp catchUp = new MemberReadiness.CatchUp();
    MemberStatus leader = member("m1", 100, 0);
    assertThat(catchUp.problem(member("m2", 99, 0), leader)).contains("applied index 99");
    assertThat(catchUp.problem(member("m2", 100, 0), leader)).isNull();
  }
}
