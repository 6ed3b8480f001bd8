package io.etcdrunbooks.workflows.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.etcdrunbooks.workflows.common.CompletedStep;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.Progress;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.common.RunbookPayloads;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberRequest;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberResult;
import io.etcdrunbooks.workflows.upgrade.LadderStep;
import io.etcdrunbooks.workflows.upgrade.UpgradePlan;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import io.temporal.api.common.v1.Payload;
import io.temporal.common.converter.DataConverter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every payload crosses Temporal's data converter unchanged (a helper method read as a property
 * would break this).
 */
class PayloadRoundTripTest {

  private static final DataConverter CONVERTER = RunbookPayloads.converter();

  private static <T> T roundTrip(T value, Class<T> type) {
    return CONVERTER.fromPayload(CONVERTER.toPayload(value).orElseThrow(), type, type);
  }

  @Test
  void clusterStateAndItsMembers() {
    MemberStatus m1 =
        new MemberStatus("m1", 11, true, true, "3.5.16", false, 20480, 120, 119, 11, List.of());
    MemberStatus m2 =
        new MemberStatus(
            "m2", 12, false, false, "", false, 0, 0, 0, 0, List.of("connection refused"));
    ClusterState state =
        new ClusterState("prod-1", List.of(m1, m2), "m1", "3.5.0", List.of("NOSPACE on m2"), 77);
    assertThat(roundTrip(state, ClusterState.class)).isEqualTo(state);
  }

  @Test
  void upgradeInputResultAndProgress() {
    UpgradeRequest request =
        UpgradeRequest.to("prod-1", "3.5.30", RunbookOptions.defaults().asDryRun());
    assertThat(roundTrip(request, UpgradeRequest.class)).isEqualTo(request);

    UpgradePlan plan =
        new UpgradePlan(
            EtcdVersion.parse("3.3.25"),
            EtcdVersion.parse("3.5.30"),
            List.of(
                new LadderStep(
                    EtcdVersion.parse("3.3.25"),
                    EtcdVersion.parse("3.4.23"),
                    List.of("m2", "m1"))));
    BackupRecord backup =
        BackupRecord.builder()
            .id("b1")
            .cluster("prod-1")
            .member("m2")
            .etcdVersion("3.3.25")
            .revision(77)
            .hash(123)
            .keyCount(300)
            .sizeBytes(4096)
            .sha256("ab")
            .path("/b/b1.db.enc")
            .takenAt("2026-11-23T00:00:00Z")
            .encrypted(true)
            .keyId("k1")
            .liveKeys(250)
            .build();
    KeyspaceDigest digest = new KeyspaceDigest(77, 300, "cd");
    UpgradeResult result =
        new UpgradeResult(
            "prod-1",
            false,
            plan,
            backup,
            Map.of("m1", "3.5.30"),
            "3.5.0",
            digest,
            digest,
            Map.of("3.3.25 -> 3.4.23", List.of("m2", "m1")),
            List.of(),
            List.of(new io.etcdrunbooks.workflows.common.MemberDownTime("m2", "3.4.23", 850)));
    assertThat(roundTrip(result, UpgradeResult.class)).isEqualTo(result);

    Progress progress =
        new Progress(
            "UpgradeCluster",
            "prod-1",
            Phase.UPGRADE,
            "3.3.25 -> 3.4.23",
            "m2",
            false,
            List.of(new CompletedStep("m2: stop", 1, 2, "done")),
            "",
            List.of(new io.etcdrunbooks.workflows.common.MemberDownTime("m2", "3.4.23", 850)),
            "",
            1_780_000_000_000L);
    assertThat(roundTrip(progress, Progress.class)).isEqualTo(progress);

    ConsistencyReport report = new ConsistencyReport(5, Map.of("m1", 1L), Map.of("m1", 9L), true);
    assertThat(roundTrip(report, ConsistencyReport.class)).isEqualTo(report);
  }

  /**
   * A version is the plain string it was before it had a type of its own: plans recorded in
   * histories (a fleet reads its upgrades' results back) read as they were written, and are written
   * so again.
   */
  @Test
  void anUpgradePlanCarriesItsVersionsAsPlainStrings() {
    String recorded =
        "{\"fromVersion\":\"3.3.25\",\"targetVersion\":\"3.5.30\",\"steps\":[{\"fromVersion\":"
            + "\"3.3.25\",\"toVersion\":\"3.4.23\",\"memberOrder\":[\"m2\",\"m1\"]}]}";
    UpgradePlan plan = fromJson(recorded, UpgradePlan.class);
    assertThat(plan.steps().get(0).toVersion()).isEqualTo(new EtcdVersion(3, 4, 23));
    assertThat(plan.targetVersion().minorLabel()).isEqualTo("3.5");
    assertThat(CONVERTER.toPayload(plan).orElseThrow().getData().toStringUtf8())
        .isEqualTo(recorded);
    assertThatThrownBy(() -> fromJson(recorded.replace("\"3.5.30\"", "\"3.5\""), UpgradePlan.class))
        .hasStackTraceContaining("version must look like 3.5.30, got '3.5'");
  }

  private static <T> T fromJson(String json, Class<T> type) {
    Payload payload =
        Payload.newBuilder()
            .putMetadata("encoding", ByteString.copyFromUtf8("json/plain"))
            .setData(ByteString.copyFromUtf8(json))
            .build();
    return CONVERTER.fromPayload(payload, type, type);
  }

  @Test
  void replaceMemberInputResultAndMembership() {
    MemberPlacement m4 =
        new MemberPlacement(
            "m4",
            "10.0.0.4",
            22,
            "https://10.0.0.4:2380",
            "https://10.0.0.4:2379",
            "/var/lib/etcd",
            "/opt/etcd",
            "/etc/etcd");
    ReplaceMemberRequest request =
        ReplaceMemberRequest.of(
            "prod-1",
            "m2",
            m4,
            RunbookOptions.defaults().withApproval().withApiServerTimeoutSeconds(30),
            "alertmanager");
    assertThat(roundTrip(request, ReplaceMemberRequest.class)).isEqualTo(request);
    ReplaceMemberRequest sameHost =
        ReplaceMemberRequest.onSameHost("prod-1", "m2", true, "alertmanager");
    assertThat(roundTrip(sameHost, ReplaceMemberRequest.class)).isEqualTo(sameHost);
    ReplaceMemberResult result =
        new ReplaceMemberResult(
            "prod-1",
            ReplaceMemberResult.REPLACED,
            "m2",
            "1a",
            m4,
            "2b",
            true,
            List.of("m1", "m4", "m3"),
            List.of("cp-1"),
            List.of());
    assertThat(roundTrip(result, ReplaceMemberResult.class)).isEqualTo(result);
    EtcdMember member = new EtcdMember(42, "", List.of("https://10.0.0.4:2380"), List.of(), true);
    assertThat(roundTrip(member, EtcdMember.class)).isEqualTo(member);
  }
}
