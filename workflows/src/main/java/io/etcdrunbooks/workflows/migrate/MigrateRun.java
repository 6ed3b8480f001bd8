package io.etcdrunbooks.workflows.migrate;

import io.etcdrunbooks.workflows.activities.MigrationActivities.LeaseReport;
import io.etcdrunbooks.workflows.activities.MigrationActivities.MigrationScope;
import io.etcdrunbooks.workflows.activities.MigrationActivities.StoreComparison;
import io.etcdrunbooks.workflows.activities.MigrationActivities.StoreSurvey;
import io.etcdrunbooks.workflows.common.RunIds;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.phases.Compensation;
import io.etcdrunbooks.workflows.phases.RunContext;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What one migration has found and done so far; each phase reads it and adds to it. */
final class MigrateRun {

  static final String V2_BACKEND = "etcd2";
  static final String V3_BACKEND = "etcd3";

  final RunContext ctx;
  final MigrateRequest request;

  /** In the names of the data dir copies and the markers beside the data dirs. */
  final String migrationId;

  /** The undo of every change made so far, until the first kube-apiserver reads v3. */
  final Compensation undo;

  List<String> members = List.of();
  List<String> controlPlane = List.of();

  /** member -> the version it runs, which its migrate tool and readiness wait use. */
  final Map<String, String> versions = new LinkedHashMap<>();

  /** control-plane host -> its --storage-backend before the migration. */
  final Map<String, String> backends = new LinkedHashMap<>();

  /**
   * The kube-apiservers' --etcd-prefix, the only keys the migration moves; null in runs started
   * before it was read (they moved the whole store).
   */
  String etcdPrefix;

  /**
   * Why the apiservers' --etcd-prefix cannot be used (they disagree, unreadable); null if it can.
   */
  String etcdPrefixProblem;

  ClusterState state;
  StoreSurvey survey;
  final Map<String, String> copies = new LinkedHashMap<>();
  final List<String> apiServersStopped = new ArrayList<>();
  final List<String> apiServersSwitched = new ArrayList<>();
  LeaseReport leases;
  StoreComparison comparison;
  long cleared;

  MigrateRun(RunContext ctx, MigrateRequest request) {
    this.ctx = ctx;
    this.undo = ctx.undos();
    this.request = request;
    this.migrationId = "v3m" + RunIds.suffix();
  }

  String cluster() {
    return ctx.cluster();
  }

  boolean changes() {
    return !request.dryRun();
  }

  MigrationScope scope() {
    return new MigrationScope(cluster(), etcdPrefix);
  }

  /** "v2 -> v3 migration of prod-1", for refusals and failures. */
  String what() {
    return "v2 -> v3 migration of " + cluster();
  }

  private boolean committed;

  /**
   * Whether a kube-apiserver has read v3, or the v2 keys are being cleared: from then on the way
   * back is not v2.
   */
  boolean pastNoReturn() {
    return committed;
  }

  /** The point of no return: the undos are dropped. */
  void commit() {
    undo.commit();
    committed = true;
  }

  MigrateResult result() {
    return new MigrateResult(
        cluster(),
        migrationId,
        survey == null ? 0 : survey.v2Keys(),
        survey == null ? 0 : survey.v2KeysWithTtl(),
        comparison == null ? 0 : comparison.v3Keys(),
        leases,
        Map.copyOf(copies),
        List.copyOf(apiServersSwitched),
        cleared,
        survey == null || survey.v2Untouched() == null ? Map.of() : survey.v2Untouched(),
        request.dryRun());
  }
}
