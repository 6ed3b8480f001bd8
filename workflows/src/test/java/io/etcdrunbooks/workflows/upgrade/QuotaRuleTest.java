package io.etcdrunbooks.workflows.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberFlags;
import io.etcdrunbooks.workflows.model.MemberStatus;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QuotaRuleTest {

  private static final long MIB = 1024 * 1024;

  private static ClusterState withDbSizes(long m1, long m2) {
    return new ClusterState(
        "c",
        List.of(
            new MemberStatus("m1", 1, true, true, "3.4.23", false, m1, 9, 9, 1, List.of()),
            new MemberStatus("m2", 2, true, true, "3.4.23", false, m2, 9, 9, 1, List.of())),
        "m1",
        "3.4.0",
        List.of(),
        9);
  }

  @Test
  void aDatabaseAtFourFifthsOfItsQuotaIsRefusedWithTheRemedy() {
    List<MemberFlags> flags =
        List.of(
            new MemberFlags("m1", List.of(), Map.of("ETCD_QUOTA_BACKEND_BYTES", "4194304"), true),
            new MemberFlags("m2", List.of("--quota-backend-bytes=104857600"), Map.of(), true));
    assertThat(QuotaRule.problems(withDbSizes(4 * MIB - 1, 79 * MIB), flags))
        .singleElement()
        .asString()
        .contains("member m1's database is 3 MiB, 100% of its 4 MiB quota", "etcdctl defrag");
  }

  @Test
  void withoutAFlagEtcdsDefaultOf2GiBApplies() {
    MemberFlags none = new MemberFlags("m1", List.of(), Map.of(), true);
    assertThat(QuotaRule.quotaOf(none)).isEqualTo(2048 * MIB);
    assertThat(
            QuotaRule.quotaOf(
                new MemberFlags("m1", List.of("--quota-backend-bytes", "0"), Map.of(), true)))
        .isEqualTo(2048 * MIB);
    MemberFlags m2 = new MemberFlags("m2", List.of(), Map.of(), true);
    assertThat(QuotaRule.problems(withDbSizes(1700 * MIB, 1600 * MIB), List.of(none, m2)))
        .singleElement()
        .asString()
        .contains("member m1's database is 1700 MiB, 83% of its 2048 MiB quota");
  }
}
