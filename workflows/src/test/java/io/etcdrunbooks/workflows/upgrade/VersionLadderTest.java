package io.etcdrunbooks.workflows.upgrade;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.VersionOffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class VersionLadderTest {

  private static final List<String> DEBIAN = List.of("3.5.30", "3.3.25", "3.5.16", "3.4.23");

  /** The ladder as the preflight plans it, the versions parsed as it parses them. */
  private static List<String> plan(String running, String target, List<String> available) {
    return plan(running, target, VersionOffer.fromReleaseStore(available));
  }

  private static List<String> plan(String running, String target, VersionOffer offer) {
    return VersionLadder.plan(
            EtcdVersion.parse("running version", running),
            EtcdVersion.parse("target version", target),
            offer)
        .stream()
        .map(EtcdVersion::toString)
        .toList();
  }

  @Test
  void climbsOneMinorAtATimeToTheTarget() {
    assertThat(plan("3.3.25", "3.5.30", DEBIAN)).containsExactly("3.4.23", "3.5.30");
    assertThat(plan("3.3.25", "3.5.16", DEBIAN)).containsExactly("3.4.23", "3.5.16");
    assertThat(plan("3.4.23", "3.5.30", DEBIAN)).containsExactly("3.5.30");
  }

  @Test
  void patchUpgradeIsOneStep() {
    assertThat(plan("3.5.16", "3.5.30", DEBIAN)).containsExactly("3.5.30");
  }

  @Test
  void takesTheNewestPatchOfTheRunningMinorBeforeAMinorJump() {
    List<String> offered = List.of("3.4.20", "3.4.23", "3.5.16", "3.5.30");
    assertThat(plan("3.4.20", "3.5.30", offered)).containsExactly("3.4.23", "3.5.30");
  }

  @Test
  void aStaticPodTargetWhoseTagTheImageRepositoryLacksIsRefusedNamingTagAndRepository() {
    VersionOffer mirror =
        new VersionOffer(
            List.of("3.3.25", "3.4.23", "3.5.16"),
            "mirror.example:5000/k8s/etcd",
            "mirror.example:5000/k8s/etcd:{version}-0",
            List.of("3.3.25-0", "3.4.23-0", "3.5.16-0"));

    assertThatThrownBy(() -> plan("3.4.23", "3.5.30", mirror))
        .hasMessageContaining(
            "the image repository mirror.example:5000/k8s/etcd has no tag 3.5.30-0"
                + " (mirror.example:5000/k8s/etcd:3.5.30-0)");
    assertThatThrownBy(
            () ->
                plan(
                    "3.3.25",
                    "3.5.16",
                    new VersionOffer(
                        List.of("3.3.25", "3.5.16"), "r/etcd", "r/etcd:{version}-0", List.of())))
        .hasMessageContaining("no 3.4.x release is offered by the image repository r/etcd");
    assertThat(plan("3.3.25", "3.5.16", mirror)).containsExactly("3.4.23", "3.5.16");
  }

  @Test
  void refusesDowngradeSameVersionUnknownTargetAndMissingMinor() {
    assertThatThrownBy(() -> plan("3.5.16", "3.4.23", DEBIAN))
        .hasMessageContaining("older than the running 3.5.16")
        .hasMessageContaining("RollbackCluster");
    assertThatThrownBy(() -> plan("3.4.23", "3.4.23", DEBIAN))
        .hasMessageContaining("already runs 3.4.23");
    assertThatThrownBy(() -> plan("3.4.23", "3.5.99", DEBIAN))
        .hasMessageContaining("3.5.99 is not offered");
    assertThatThrownBy(() -> plan("3.3.25", "3.5.30", List.of("3.3.25", "3.5.30")))
        .hasMessageContaining("no 3.4.x release");
    assertThatThrownBy(() -> plan("3.4.23", "latest", DEBIAN))
        .hasMessageContaining("must look like 3.5.30");
  }

  @Test
  void entering3_6NeedsAtLeast3_5_32First() {
    assertThatThrownBy(() -> plan("3.5.16", "3.6.5", List.of("3.5.16", "3.5.30", "3.6.5")))
        .hasMessageContaining("3.6 needs every member on 3.5.32 or later first")
        .hasMessageContaining("from 3.5.30");
    assertThat(plan("3.5.16", "3.6.5", List.of("3.5.16", "3.5.32", "3.6.5")))
        .containsExactly("3.5.32", "3.6.5");
  }

  @Test
  void entering3_7NeedsAtLeast3_6_11First() {
    assertThatThrownBy(() -> plan("3.6.5", "3.7.0", List.of("3.6.5", "3.6.10", "3.7.0")))
        .hasMessageContaining("3.7 needs every member on 3.6.11 or later first")
        .hasMessageContaining("from 3.6.10")
        .hasMessageNotContaining("v2store");
    assertThat(plan("3.6.5", "3.7.0", List.of("3.6.5", "3.6.11", "3.7.0")))
        .containsExactly("3.6.11", "3.7.0");
  }
}
