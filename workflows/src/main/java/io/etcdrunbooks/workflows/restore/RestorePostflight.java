package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.activities.EtcdActivities.KeyspaceDigestRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.KeyspaceDigest;
import io.etcdrunbooks.workflows.phases.PostflightCheck;
import java.util.ArrayList;
import java.util.List;

/**
 * The POSTFLIGHT of a restore: what every changing runbook checks, plus the restored keyspace
 * against the backup: its revision the backup's (plus the bump) and its live keys the backup's. A
 * problem leaves the kube-apiservers stopped.
 */
final class RestorePostflight {

  private RestorePostflight() {}

  static void run(RestoreRun run) {
    PostflightCheck.Found found =
        PostflightCheck.check(
            run.ctx,
            state -> {
              run.digest =
                  run.ctx
                      .progress()
                      .record(
                          "keyspace",
                          () ->
                              run.ctx
                                  .activities()
                                  .etcd
                                  .keyspaceDigest(new KeyspaceDigestRequest(run.cluster(), 0)));
              return againstTheBackup(run.digest, run.backup, run.bump);
            });
    run.after = found.state();
    if (!found.problems().isEmpty()) {
      throw PostflightCheck.failed(
          run.whatFromBackup(),
          found.problems(),
          FailureType.RestoreFailed,
          "The kube-apiservers were left stopped. " + RestoreFailure.leftBehind(run));
    }
  }

  static List<String> againstTheBackup(KeyspaceDigest digest, BackupRecord backup, long bump) {
    List<String> problems = new ArrayList<>();
    long expectedRevision = backup.revision() + bump;
    if (digest.revision() != expectedRevision) {
      problems.add(
          "the restored cluster is at revision %s, expected %s (backup revision %s%s)"
              .formatted(
                  digest.revision(),
                  expectedRevision,
                  backup.revision(),
                  bump == 0 ? "" : " + bump " + bump));
    }
    if (backup.liveKeys() > 0 && digest.keyCount() != backup.liveKeys()) {
      problems.add(
          "the restored cluster holds %s keys, the backup %s"
              .formatted(digest.keyCount(), backup.liveKeys()));
    }
    return problems;
  }
}
