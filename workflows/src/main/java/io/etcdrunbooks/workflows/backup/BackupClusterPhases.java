package io.etcdrunbooks.workflows.backup;

import static io.etcdrunbooks.workflows.phases.RunbookPhase.always;
import static io.etcdrunbooks.workflows.phases.RunbookPhase.when;

import io.etcdrunbooks.workflows.activities.BackupActivities.BackupRequest;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.RetentionResult;
import io.etcdrunbooks.workflows.phases.PhaseRunner;

/**
 * The BackupCluster runbook, phase by phase. {@code pause} holds it before the backup and before
 * retention.
 */
public final class BackupClusterPhases {

  public static final PhaseRunner<BackupRun> RUNNER =
      new PhaseRunner<>(
          when(
              Phase.AWAITING_APPROVAL,
              "waits for an operator's approve (requireApproval)",
              run -> run.request.requireApproval(),
              BackupClusterPhases::awaitApproval),
          always(
              Phase.BACKUP,
              "takes a verified, encrypted snapshot under a new id (retries reuse it), then copies it to the"
                  + " off-site host and the object store when the inventory names them (backup.copyTo,"
                  + " backup.objectStore)",
              BackupClusterPhases::backup),
          always(
              Phase.RETENTION,
              "deletes the backups the cluster's retention settings no longer keep, never the newest"
                  + " verified one, on the worker, the off-site host and the object store",
              BackupClusterPhases::retention),
          always(
              Phase.DONE,
              "the result: the new backup's record; the message says where it is and what retention kept and"
                  + " deleted",
              BackupClusterPhases::done));

  private BackupClusterPhases() {}

  private static void awaitApproval(BackupRun run) {
    run.ctx.approval().awaitApproval("the backup " + run.id + " is taken", () -> false);
  }

  private static void backup(BackupRun run) {
    ProgressTracker progress = run.ctx.progress();
    progress.awaitResumed();
    progress.step(run.id);
    BackupRecord backup =
        progress.record(
            "verified backup " + run.id,
            () ->
                run.ctx
                    .activities()
                    .backup
                    .takeVerifiedBackup(new BackupRequest(run.ctx.cluster(), run.id)));
    run.backup = backup;
    progress.message(
        "backup %s: revision %s, %s bytes, %s"
            .formatted(run.id, backup.revision(), backup.sizeBytes(), encryption(backup)));
    // added after BackupCluster shipped: histories recorded before it replay without the copy
    if (BackupPatches.OFFSITE_COPY.applies()) {
      String copy =
          progress.record(
              "off-site copy",
              () ->
                  run.ctx
                      .activities()
                      .backup
                      .copyOffsite(new BackupRequest(run.ctx.cluster(), run.id)));
      run.offsite =
          copy.isEmpty() ? " (no off-site host in the inventory)" : " and copied to " + copy;
    }
  }

  private static String encryption(BackupRecord backup) {
    return backup.encrypted()
        ? "encrypted with key " + backup.keyId()
        : "NOT encrypted (encrypt: false in the inventory)";
  }

  private static void retention(BackupRun run) {
    run.ctx.progress().awaitResumed();
    run.retention =
        run.ctx
            .progress()
            .record("retention", () -> run.ctx.activities().backup.applyRetention(run.ctx.ref()));
  }

  private static void done(BackupRun run) {
    RetentionResult retention = run.retention;
    run.ctx
        .progress()
        .message(
            "backup %s kept%s; retention kept %s, deleted %s%s"
                .formatted(
                    run.id,
                    run.offsite,
                    retention.kept().size(),
                    retention.deleted(),
                    retention.unverified().isEmpty()
                        ? ""
                        : "; unverified backups to look at: " + retention.unverified()));
  }
}
