package io.etcdrunbooks.workflows.backup;

import io.etcdrunbooks.workflows.common.RunIds;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.RetentionResult;
import io.etcdrunbooks.workflows.phases.RunContext;
import io.temporal.workflow.Workflow;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/** What one BackupCluster runbook has done so far; each phase reads it and adds to it. */
final class BackupRun {

  private static final DateTimeFormatter ID_TIME =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  final RunContext ctx;
  final BackupClusterRequest request;

  /**
   * backup-<UTC time>-<run id prefix>: the same on replay and on activity retries, so a backup is
   * never taken twice.
   */
  final String id;

  BackupRecord backup;

  /**
   * " and copied to host:path", or why there is no off-site copy ("" for runs from before the
   * copy).
   */
  String offsite = "";

  RetentionResult retention;

  private BackupRun(RunContext ctx, BackupClusterRequest request, String id) {
    this.ctx = ctx;
    this.request = request;
    this.id = id;
  }

  /**
   * A run with its backup named from workflow time and the run id's random end; the reason, when
   * given, shown in the progress.
   */
  static BackupRun start(RunContext ctx, BackupClusterRequest request) {
    if (request.reason() != null && !request.reason().isBlank())
      ctx.progress().message("reason: " + request.reason());
    String id =
        "backup-"
            + ID_TIME.format(Instant.ofEpochMilli(Workflow.currentTimeMillis()))
            + "-"
            + RunIds.suffix();
    return new BackupRun(ctx, request, id);
  }
}
