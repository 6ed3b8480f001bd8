package io.etcdrunbooks.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.MemberSpec;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Which member an alert's labels name, and the payload checks. */
class AlertTargetsTest {

  private static final Inventory INVENTORY =
      new Inventory(
          null,
          Map.of(
              "prod-1",
              new ClusterSpec(
                  "prod-1",
                  List.of(
                      member("m1", "https://10.0.0.1:2379", "https://10.0.0.1:2380"),
                      member("m2", "https://etcd-2.example:2379", "https://etcd-2.example:2380")),
                  null,
                  null,
                  null,
                  null,
                  null,
                  null)));

  private static MemberSpec member(String name, String clientUrl, String peerUrl) {
    return new MemberSpec(name, "host", 22, clientUrl, peerUrl, "/d", "/i", "/s");
  }

  private static AlertTargets.Resolution resolve(Map<String, String> labels) {
    return AlertTargets.resolve(INVENTORY, labels, "cluster", "member");
  }

  @Test
  void theMemberLabelMayBeTheNameOrTheHostAndPortOfAUrl() {
    assertThat(resolve(Map.of("cluster", "prod-1", "member", "m2")))
        .isEqualTo(new AlertTargets.Found("prod-1", "m2"));
    assertThat(resolve(Map.of("cluster", "prod-1", "member", "10.0.0.1:2379")))
        .isEqualTo(new AlertTargets.Found("prod-1", "m1"));
    assertThat(resolve(Map.of("cluster", "prod-1", "member", "10.0.0.1:2380")))
        .isEqualTo(new AlertTargets.Found("prod-1", "m1"));
    assertThat(resolve(Map.of("cluster", "prod-1", "member", "ETCD-2.example:2379")))
        .isEqualTo(new AlertTargets.Found("prod-1", "m2"));
  }

  @Test
  void unknownOrMissingLabelsAreExplained() {
    assertThat(
            ((AlertTargets.NotFound) resolve(Map.of("cluster", "nope", "member", "m1"))).reason())
        .contains("cluster='nope'", "[prod-1]");
    assertThat(((AlertTargets.NotFound) resolve(Map.of("member", "m1"))).reason())
        .contains("no label 'cluster'", "[prod-1]");
    assertThat(
            ((AlertTargets.NotFound)
                    resolve(Map.of("cluster", "prod-1", "member", "10.0.0.9:2379")))
                .reason())
        .contains("member='10.0.0.9:2379'", "m1 (10.0.0.1:2379, 10.0.0.1:2380)", "m2");
    assertThat(((AlertTargets.NotFound) resolve(Map.of("cluster", "prod-1"))).reason())
        .contains("no label 'member'");
  }

  @Test
  void payloadsOtherThanVersion4AreRefused() {
    assertThatThrownBy(() -> AlertmanagerController.parse("{\"version\":\"3\",\"alerts\":[]}"))
        .hasMessageContaining("version '3'");
    assertThatThrownBy(() -> AlertmanagerController.parse("{\"version\":\"4\"}"))
        .hasMessageContaining("no 'alerts' list");
    assertThatThrownBy(() -> AlertmanagerController.parse("{\"version\":"))
        .hasMessageContaining("not valid JSON");
    assertThatThrownBy(() -> AlertmanagerController.parse("[]"))
        .hasMessageContaining("must be a JSON object");
    assertThatThrownBy(
            () ->
                AlertmanagerController.parse("{\"version\":\"4\",\"alerts\":[{\"labels\":\"x\"}]}"))
        .hasMessageContaining("shape of an Alertmanager webhook payload");
    AlertmanagerPayload payload =
        AlertmanagerController.parse(
            "{\"version\":\"4\",\"status\":\"firing\",\"extra\":1,"
                + "\"alerts\":[{\"status\":\"firing\",\"labels\":{\"alertname\":\"EtcdMemberDown\"},\"fingerprint\":\"abc\"}]}");
    assertThat(payload.alerts())
        .singleElement()
        .satisfies(
            a -> {
              assertThat(a.label("alertname")).isEqualTo("EtcdMemberDown");
              assertThat(a.fingerprint()).isEqualTo("abc");
            });
  }

  @Test
  void anAlertForAClusterWhoseEntryIsInvalidIsIgnoredSayingWhatIsWrong() {
    Inventory inventory =
        new Inventory(
            null,
            INVENTORY.clusters(),
            Map.of(),
            Map.of(
                "broken",
                new Inventory.InvalidCluster(
                    null, List.of("cluster 'broken': service.unit must be a systemd unit name"))));

    AlertTargets.Resolution resolution =
        AlertTargets.resolve(
            inventory, Map.of("cluster", "broken", "member", "m1"), "cluster", "member");

    assertThat(((AlertTargets.NotFound) resolution).reason())
        .contains("cluster 'broken' is refused", "service.unit must be a systemd unit name");
  }
}
