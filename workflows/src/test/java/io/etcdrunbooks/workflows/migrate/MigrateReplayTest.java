package io.etcdrunbooks.workflows.migrate;

import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.testing.RecordedHistories;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Replays migrations recorded with the code they shipped with against today's workflow code: real
 * ones (1,200 Kubernetes 1.5-style v2 keys on three 3.3.25 members, three kube-apiserver stand-ins;
 * the second with the --etcd-prefix read and one v3 store given to every member; recorded by the
 * worker module's MigrateV2ToV3Test into worker/target/recorded-migrate-history.json) and in-memory
 * ones of each ending (recorded by MigrateControlFlowTest with -Detcdrunbooks.recordHistoriesTo). A
 * change that breaks one needs Workflow.getVersion.
 */
class MigrateReplayTest {

  @ParameterizedTest
  @ValueSource(
      strings = {
        "migrate-3.3.25-kubernetes-1.5-data",
        "migrate-3.3.25-one-prefix-one-v3-store",
        "migrate-in-memory-migrated",
        "migrate-in-memory-rolled-back-at-migrate",
        "migrate-in-memory-first-apiserver-unhealthy",
        "migrate-in-memory-failed-after-no-return"
      })
  void todaysCodeReplaysARecordedMigration(String history) throws Exception {
    RecordedHistories.replay(
        "histories/" + history + ".json",
        RunbookIds.changing(history.contains("in-memory") ? "c" : "sandbox"),
        MigrateV2ToV3WorkflowImpl.class);
  }
}
