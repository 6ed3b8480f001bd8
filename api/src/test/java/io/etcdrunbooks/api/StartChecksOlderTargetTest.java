package io.etcdrunbooks.api;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.api.StartChecks.RunbookRefused;
import io.etcdrunbooks.workflows.activities.EtcdActivities;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.MemberStatus;
import java.lang.reflect.Proxy;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * An upgrade to a version older than the cluster runs is refused before anything starts, naming the
 * way back: etcd's online downgrade (DowngradeCluster) once the cluster runs 3.6 or later, the
 * rollback before.
 */
class StartChecksOlderTargetTest {

  @Test
  void on3_6TheRefusalNamesTheDowngradeEndpointNotTheRollback() {
    assertThatThrownBy(() -> checks("3.6.16").upgrade("prod", EtcdVersion.parse("3.5.35")))
        .isInstanceOf(RunbookRefused.class)
        .hasMessageContaining("target 3.5.35 is older than the running 3.6.16")
        .hasMessageContaining(
            "POST /api/v1/clusters/prod/downgrade with {\"toVersion\": \"3.5.35\"}")
        .hasMessageContaining("DowngradeCluster")
        .hasMessageNotContaining("rollback");
  }

  @Test
  void on3_5TheRefusalNamesTheRollback() {
    assertThatThrownBy(() -> checks("3.5.35").upgrade("prod", EtcdVersion.parse("3.4.23")))
        .isInstanceOf(RunbookRefused.class)
        .hasMessageContaining("POST /api/v1/clusters/prod/rollback goes back")
        .hasMessageNotContaining("downgrade");
  }

  /** Start checks that discover three healthy members on {@code version}. */
  private static StartChecks checks(String version) {
    List<MemberStatus> members =
        IntStream.rangeClosed(1, 3)
            .mapToObj(
                i ->
                    new MemberStatus("m" + i, i, true, true, version, false, 0, 9, 9, 1, List.of()))
            .toList();
    ClusterState state =
        new ClusterState("prod", members, "m1", version, List.of(), 9, null, false, null, null);
    EtcdActivities etcd =
        (EtcdActivities)
            Proxy.newProxyInstance(
                EtcdActivities.class.getClassLoader(),
                new Class<?>[] {EtcdActivities.class},
                (proxy, method, args) -> {
                  if (method.getName().equals("discover")) return state;
                  throw new UnsupportedOperationException(method.getName());
                });
    return new StartChecks(etcd);
  }
}
