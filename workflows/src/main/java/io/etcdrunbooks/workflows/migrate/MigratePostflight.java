package io.etcdrunbooks.workflows.migrate;

import io.etcdrunbooks.workflows.activities.MigrationActivities.StoreComparison;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.V2DataOwners;
import io.etcdrunbooks.workflows.phases.PostflightCheck;
import java.util.ArrayList;
import java.util.List;

/**
 * The migration's checks before the kube-apiservers read v3 (POSTFLIGHT), the v2 keys cleared once
 * they do (CLEAR_V2), and its outcome (DONE).
 */
final class MigratePostflight {

  private MigratePostflight() {}

  /** Fails, so that COMPENSATE puts v2 back, when v3 is not the v2 store's copy. */
  static void run(MigrateRun run) {
    List<String> problems = new ArrayList<>();
    problems.addAll(PostflightCheck.check(run.ctx, state -> List.of()).problems());
    StoreComparison comparison =
        run.ctx
            .progress()
            .record(
                "every v2 key in v3", () -> run.ctx.activities().migration.compare(run.scope()));
    run.comparison = comparison;
    problems.addAll(comparison.problems());
    if (MigratePatches.TTL_KEYS_EXPIRE.applies()) {
      long before = run.survey.v2Keys() - run.survey.v2KeysWithTtl();
      long after = comparison.v2Keys() - comparison.v2KeysWithTtl();
      if (after != before) {
        problems.add(
            ("the v2 store held %d keys without a TTL before the migration and %d after it:"
                    + " something wrote to v2 meanwhile")
                .formatted(before, after));
      }
    } else if (comparison.v2Keys() != run.survey.v2Keys()) {
      problems.add(
          ("the v2 store held %d keys before the migration and %d after it: something wrote to"
                  + " v2 meanwhile")
              .formatted(run.survey.v2Keys(), comparison.v2Keys()));
    }
    if (!comparison.v2Prefixes().equals(comparison.v3Prefixes())) {
      problems.add(
          "keys per prefix differ: v2 %s, v3 %s"
              .formatted(comparison.v2Prefixes(), comparison.v3Prefixes()));
    }
    if (!problems.isEmpty()) {
      throw FailureType.PostflightFailed.nonRetryable(
          run.what()
              + ": the v3 store is not the v2 store's copy:\n  - "
              + String.join("\n  - ", problems));
    }
  }

  static void clearV2(MigrateRun run) {
    run.commit();
    run.cleared =
        run.ctx
            .progress()
            .record(
                run.etcdPrefix == null
                    ? "delete the migrated keys from the v2 store"
                    : "delete " + run.etcdPrefix + " from the v2 store",
                () -> run.ctx.activities().migration.clearV2(run.scope()));
  }

  static void done(MigrateRun run) {
    if (!run.changes()) return;
    run.ctx
        .progress()
        .message(
            ("migrated %d v2 keys to v3 (%d leased in %d leases); kube-apiservers on etcd3: %s;"
                    + " data dir copies from before the migration: %s%s")
                .formatted(
                    run.comparison.v3Keys(),
                    run.leases.keysLeased() + run.leases.alreadyLeased(),
                    run.leases.leases(),
                    run.apiServersSwitched,
                    run.copies,
                    run.survey.v2Untouched() == null || run.survey.v2Untouched().isEmpty()
                        ? ""
                        : "; left in the v2 store as they were: "
                            + V2DataOwners.describe(run.survey.v2Untouched())));
  }
}
