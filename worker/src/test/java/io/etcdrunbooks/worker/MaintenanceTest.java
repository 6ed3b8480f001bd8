package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.activities.MaintenanceActivities.ApiServerCompaction;
import io.etcdrunbooks.workflows.activities.MaintenanceActivities.MemberSpace;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.maintenance.MaintenanceRequest;
import io.etcdrunbooks.workflows.maintenance.MaintenanceResult;
import io.etcdrunbooks.workflows.maintenance.MaintenanceWorkflow;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.temporal.client.WorkflowFailedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * Maintenance on a real cluster whose small quota (--quota-backend-bytes 16 MiB) a writer filled
 * with history until etcd raised NOSPACE and refused writes: the history compacted, every member
 * defragmented (the leader last), the alarm disarmed, writes accepted again, every live key there.
 * Its methods run side by side, each on its own sandbox. The schedule's rounds are
 * RunbookSchedulesTest's (a Temporal Schedule, its slots backfilled).
 */
@RealEtcd
@Execution(ExecutionMode.CONCURRENT)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class MaintenanceTest {

  private static final long QUOTA = 16L << 20;
  private static final String VALUE = "x".repeat(100 * 1024);

  @TempDir Path dir;

  @Test
  void aClusterOutOfSpaceIsCompactedDefragmentedAndTakesWritesAgain() throws Exception {
    Map<String, String> quota = Map.of("ETCD_QUOTA_BACKEND_BYTES", String.valueOf(QUOTA));
    try (SandboxRunbooks runbooks =
            SandboxRunbooks.start(dir, "3.5.30", Map.of("m1", quota, "m2", quota, "m3", quota));
        ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
      probe.putMany("/registry/configmaps/c-", 50);
      int written = fillUntilNospace(probe);
      assertThat(written).as("puts until NOSPACE").isLessThan(2000);
      assertThat(runbooks.state().alarms()).anyMatch(a -> a.startsWith("NOSPACE"));
      assertThatThrownBy(() -> probe.put("/registry/after", "refused"))
          .hasMessageContaining("space exceeded");

      assertThatThrownBy(
              () ->
                  runbooks
                      .maintenanceStub()
                      .maintain(request().compactingTo(probe.revision() + 1000)))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                assertThat(Failures.rootType(e)).isEqualTo(FailureType.MaintenanceRefused.name());
                assertThat(Failures.rootMessage(e))
                    .contains("is newer than the cluster's revision");
              });
      Map<String, ClusterProbe.StoredKey> live = probe.dump(0);
      String leader = runbooks.state().leaderName();

      MaintenanceResult result = runbooks.maintenanceStub().maintain(request().compactingAllBut(0));

      assertThat(result.compactedTo()).isPositive();
      assertThat(result.defragmented()).hasSize(3).endsWith(leader);
      assertThat(result.alarmsDisarmed()).isNotEmpty();
      for (MemberSpace after : result.after()) {
        MemberSpace before =
            result.before().stream()
                .filter(b -> b.member().equals(after.member()))
                .findFirst()
                .orElseThrow();
        assertThat(after.sizeBytes()).as(after.member()).isLessThan(before.sizeBytes());
        assertThat(after.sizeBytes()).as(after.member()).isLessThan(QUOTA / 2);
      }
      assertThat(runbooks.state().alarms()).isEmpty();
      assertThat(runbooks.state().members()).allSatisfy(m -> assertThat(m.healthy()).isTrue());
      assertThat(runbooks.state().members().stream().filter(MemberStatus::leads).count())
          .isEqualTo(1);
      probe.put("/registry/after", "accepted");
      Map<String, ClusterProbe.StoredKey> now = probe.dump(0);
      assertThat(now).containsAllEntriesOf(live).containsKey("/registry/after");
      assertThat(probe.hashKvByMember(0).values().stream().distinct()).hasSize(1);
      Files.writeString(
          Path.of("target", "recorded-maintenance-history.json"),
          runbooks.client().fetchHistory(MaintenanceWorkflow.workflowId("sandbox")).toJson(true));
    }
  }

  @Test
  void aDryRunPlansWithoutTouchingAnything() throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.4.23", Map.of());
        ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
      long apiServerCompactedTo = probe.revision() + 1;
      probe.putMany("/registry/pods/p-", 200);
      // kube-apiserver's compaction marker, as it writes it (the revision it compacted to)
      probe.put(ApiServerCompaction.KEY, String.valueOf(apiServerCompactedTo));
      long revision = probe.revision();
      MaintenanceRequest dryRun =
          MaintenanceRequest.of("sandbox", RunbookOptions.defaults().asDryRun())
              .compactingAllBut(10)
              .defragmentingAll();

      assertThatThrownBy(() -> runbooks.maintenanceStub().maintain(dryRun))
          .satisfies(
              e ->
                  assertThat(Failures.rootMessage(e))
                      .contains(
                          "compacting to revision " + (revision - 10),
                          "it compacted to %d itself at revision %d"
                              .formatted(apiServerCompactedTo, revision),
                          "forceCompaction"));
      MaintenanceResult result = runbooks.maintenanceStub().maintain(dryRun.forcingCompaction());

      assertThat(result.compactedTo()).isZero();
      assertThat(result.defragmented()).isEmpty();
      assertThat(result.after()).isEqualTo(result.before());
      assertThat(probe.dump(0).keySet()).hasSize(201);
      assertThat(probe.revision()).isEqualTo(revision);
      // nothing compacted: the first write's revision still reads, holding that one key
      assertThat(probe.dump(2)).containsOnlyKeys("/registry/pods/p-0");
    }
  }

  /** Overwrites 20 keys with 100 KiB values until etcd refuses for NOSPACE; how many went in. */
  private static int fillUntilNospace(ClusterProbe probe) throws Exception {
    for (int i = 0; i < 2000; i++) {
      try {
        probe.put("/registry/events/e-" + (i % 20), VALUE);
      } catch (Exception e) {
        if (String.valueOf(e.getMessage()).contains("space exceeded")) return i;
        throw e;
      }
    }
    return 2000;
  }

  private static MaintenanceRequest request() {
    return MaintenanceRequest.of("sandbox", RunbookOptions.defaults());
  }
}
