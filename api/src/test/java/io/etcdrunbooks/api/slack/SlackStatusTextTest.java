package io.etcdrunbooks.api.slack;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.model.V2Store;
import java.util.List;
import org.junit.jupiter.api.Test;

class SlackStatusTextTest {

  private static final List<MemberStatus> MEMBERS =
      List.of(new MemberStatus("m1", 1, true, true, "3.3.25", false, 1, 9, 9, 1, List.of()));

  @Test
  void theV2StoreAndAuthenticationAreShownWhenTheyMatterForAnUpgrade() {
    ClusterState state =
        new ClusterState(
            "prod",
            MEMBERS,
            "m1",
            "3.3.0",
            List.of(),
            9,
            null,
            true,
            new V2Store(List.of("m1"), 1200, 200, null, java.util.Map.of()));
    assertThat(SlackStatusReader.text(state))
        .contains(
            "authentication: on", "v2 API served by m1; v2 store: 1200 keys (200 with a TTL)");
  }

  @Test
  void aClusterWithoutV2OrAuthShowsNeither() {
    ClusterState state = new ClusterState("prod", MEMBERS, "m1", "3.5.0", List.of(), 9);
    assertThat(SlackStatusReader.text(state)).doesNotContain("v2", "authentication", "unreadable");
  }

  @Test
  void whatCouldNotBeReadIsSaid() {
    ClusterState state =
        new ClusterState(
            "prod",
            MEMBERS,
            "m1",
            "3.3.0",
            List.of(),
            9,
            "DEADLINE_EXCEEDED",
            false,
            V2Store.unreadable("HTTP 500"));
    assertThat(SlackStatusReader.text(state))
        .contains("alarms: unreadable (DEADLINE_EXCEEDED)", "v2 store: unreadable (HTTP 500)");
  }
}
