package io.etcdrunbooks.workflows.backup;

import io.etcdrunbooks.workflows.activities.BackupActivities.BackupRequest;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.RetentionResult;
import io.etcdrunbooks.workflows.phases.Activities;
import io.temporal.workflow.Workflow;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

public final class BackupClusterWorkflowImpl extends RunbookWorkflow implements BackupClusterWorkflow {

  private static final DateTimeFormatter ID_TIME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  private final Activities activities = new Activities();

  public BackupClusterWorkflowImpl() {
    super(TYPE);
  }

  @Override
  public BackupRecord backup(BackupClusterRequest request) {
    return runFor(request.cluster(), () -> run(request));
  }

  private BackupRecord run(BackupClusterRequest request) {
    String cluster = request.cluster();
    if (request.reason() != null && !request.reason().isBlank()) progress.message("reason: " + request.reason());
    // workflow time and run id: the same id on replay and on activity retries, so a retried backup is not taken twice
    String id = "backup-" + ID_TIME.format(Instant.ofEpochMilli(Workflow.currentTimeMillis())) + "-"
        + Workflow.getInfo().getRunId().substring(0, 8);

    if (request.requireApproval()) awaitApproval("the backup " + id + " is taken", () -> false);
    progress.awaitResumed();
    progress.phase(Phase.BACKUP);
    progress.step(id);
    BackupRecord backup = progress.record("verified backup " + id,
        () -> activities.backup.takeVerifiedBackup(new BackupRequest(cluster, id)));
    progress.message("backup " + id + ": revision " + backup.revision() + ", " + backup.sizeBytes() + " bytes, "
        + (backup.encrypted() ? "encrypted with key " + backup.keyId() : "NOT encrypted (encrypt: false in the inventory)"));

    // added after BackupCluster shipped: histories recorded before it replay without the copy
    String offsite = "";
    if (Workflow.getVersion("offsite-copy", Workflow.DEFAULT_VERSION, 1) >= 1) {
      String copy = progress.record("off-site copy", () -> activities.backup.copyOffsite(new BackupRequest(cluster, id)));
      offsite = copy.isEmpty() ? " (no off-site host in the inventory)" : " and copied to " + copy;
    }

    progress.awaitResumed();
    progress.phase(Phase.RETENTION);
    RetentionResult retention = progress.record("retention", () -> activities.backup.applyRetention(new ClusterRef(cluster)));
    progress.phase(Phase.DONE);
    progress.message("backup " + id + " kept" + offsite + "; retention kept " + retention.kept().size() + ", deleted " + retention.deleted()
        + (retention.unverified().isEmpty() ? "" : "; unverified backups to look at: " + retention.unverified()));
    return backup;
  }
}
