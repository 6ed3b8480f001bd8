package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.activities.HostActivities.TranslateFlagsRequest;
import io.etcdrunbooks.workflows.activities.RestoreActivities.CheckBackupRequest;
import io.etcdrunbooks.workflows.activities.RestoreActivities.EncryptionConfigRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.HostAccessPreflight;
import io.etcdrunbooks.workflows.phases.Refusal;
import io.temporal.failure.ActivityFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The restore's refusals: the request itself (before anything is read), then every reason not to
 * start (PREFLIGHT).
 */
final class RestorePreflight {

  private RestorePreflight() {}

  /**
   * Refuses a request that cannot be right whatever the cluster: one problem at a time, touching
   * and reading nothing.
   */
  static void checkRequest(RestoreRun run) {
    if (!run.request.acknowledgeDataLoss()) {
      throw refused(
          run,
          List.of(
              "acknowledgeDataLoss must be true: a restore replaces the cluster's data with the"
                  + " backup's, and every write made after the backup is lost"));
    }
    if (!run.target.isEmpty() && !EtcdVersion.isVersion(run.target)) {
      throw refused(
          run,
          List.of("etcdVersion must look like 3.4.23 (or be left out), got '" + run.target + "'"));
    }
  }

  /**
   * Every problem at once, or none: the backup, each member's version, the binary source, the
   * hosts.
   */
  static void run(RestoreRun run) {
    List<String> problems = new ArrayList<>();
    run.backup = checkedBackup(run, problems);
    if (run.backup != null && RestorePatches.ENCRYPTION_CONFIG.applies()) {
      run.checksEncryptionConfig = true;
      problems.addAll(encryptionConfigProblems(run));
    }
    if (run.ontoNewHosts) newHostVersions(run);
    else installedVersions(run, problems);
    List<List<String>> offered = new ArrayList<>(1);
    Supplier<List<String>> available =
        () -> {
          if (offered.isEmpty()) {
            offered.add(run.ctx.activities().releases.availableVersions(run.ctx.ref()));
          }
          return offered.get(0);
        };
    if (!run.target.isEmpty()) {
      if (!available.get().contains(run.target)) {
        problems.add(
            "etcd %s is not offered by the binary source (it has %s)"
                .formatted(run.target, available.get()));
      }
      run.members.forEach(m -> run.versions.put(m.name(), run.target));
    }
    if (run.backup != null) problems.addAll(olderThanTheBackup(run.versions, run.backup));
    if (run.backup != null && RestorePatches.RESTORE_TOOL_BUMPS.applies()) {
      problems.addAll(RestoreTools.choose(run, available, run.restoreTools));
      borrowedTools(run);
    }
    // onto new hosts, the old members are not touched: only the control-plane hosts must answer
    List<String> notLoggedInTo = run.oldMembers.stream().map(MemberPlacement::name).toList();
    problems.addAll(
        HostAccessPreflight.problems(
            run.ctx.activities(), run.ctx.progress(), run.cluster(), notLoggedInTo, true));
    if (run.ontoNewHosts) RestoreNewHosts.checkHosts(run, problems);
    else if (problems.isEmpty() && translatesFlags(run)) flagTranslations(run, problems);
    if (!problems.isEmpty()) throw refused(run, problems);
  }

  /** Whether members get their flags translated for etcdVersion (one was asked). */
  static boolean translatesFlags(RestoreRun run) {
    return !run.target.isEmpty() && RestorePatches.TRANSLATE_FLAGS.applies();
  }

  /**
   * The flags each member would get for etcdVersion, read but not written: a flag the version
   * cannot be given (a feature gate the runbook does not know) is named before any member stops.
   */
  private static void flagTranslations(RestoreRun run, List<String> problems) {
    for (MemberPlacement m : run.members) {
      try {
        List<String> changes =
            run.ctx
                .progress()
                .record(
                    m.name() + ": flags for " + run.target,
                    () ->
                        run.ctx
                            .activities()
                            .host
                            .translateFlags(
                                new TranslateFlagsRequest(
                                    run.cluster(), m.name(), run.target, false)));
        if (!changes.isEmpty()) {
          run.ctx
              .progress()
              .message(m.name() + ": flags translated for " + run.target + ": " + changes);
        }
      } catch (ActivityFailure e) {
        problems.add("member " + m.name() + ": " + Failures.rootMessage(e));
      }
    }
  }

  private static void borrowedTools(RestoreRun run) {
    run.restoreTools.forEach(
        (member, tool) -> {
          if (!tool.isEmpty()) {
            run.ctx
                .progress()
                .message(
                    "%s: restored with etcdutl %s from the binary source, which raises the"
                            .formatted(member, tool)
                        + " revision (its own etcd's tool cannot)");
          }
        });
  }

  /**
   * The backup asked for, decrypted and verified end to end; null (and the problem named) when it
   * is not usable.
   */
  private static BackupRecord checkedBackup(RestoreRun run, List<String> problems) {
    String backupId = run.request.backupId();
    String named = backupId == null || backupId.isBlank() ? "latest" : backupId;
    try {
      return run.ctx
          .progress()
          .record(
              "backup " + named + " decrypts and verifies",
              () ->
                  run.ctx
                      .activities()
                      .restore
                      .checkBackup(
                          new CheckBackupRequest(
                              run.cluster(), backupId, run.request.takenOnMinor())));
    } catch (ActivityFailure e) {
      problems.add(Failures.rootMessage(e));
      return null;
    }
  }

  /**
   * New hosts run etcdVersion when asked for, else the version that took the backup (set for every
   * member just after, when asked for).
   */
  private static void newHostVersions(RestoreRun run) {
    String version = run.backup == null ? "" : run.backup.etcdVersion();
    run.members.forEach(m -> run.versions.put(m.name(), version));
  }

  /**
   * Secrets restored without the keys they were encrypted with cannot be read: each control-plane
   * host's EncryptionConfiguration must still have the keys the backup recorded.
   */
  private static List<String> encryptionConfigProblems(RestoreRun run) {
    try {
      return run.ctx
          .progress()
          .record(
              "the kube-apiservers' EncryptionConfiguration has backup "
                  + run.backup.id()
                  + "'s keys",
              () ->
                  run.ctx
                      .activities()
                      .restore
                      .encryptionConfigProblems(
                          new EncryptionConfigRequest(
                              run.cluster(),
                              run.backup.id(),
                              run.request.putBackEncryptionConfig())));
    } catch (ActivityFailure e) {
      return List.of(Failures.rootMessage(e));
    }
  }

  private static void installedVersions(RestoreRun run, List<String> problems) {
    Activities activities = run.ctx.activities();
    for (MemberPlacement m : run.members) {
      try {
        run.versions.put(
            m.name(),
            run.ctx
                .progress()
                .record(
                    m.name() + ": installed etcd",
                    () ->
                        activities.host.installedVersion(new MemberRef(run.cluster(), m.name()))));
      } catch (ActivityFailure e) {
        problems.add("member " + m.name() + ": " + Failures.rootMessage(e));
      }
    }
  }

  /** An older minor version cannot run the data a newer one wrote. */
  static List<String> olderThanTheBackup(Map<String, String> versions, BackupRecord backup) {
    EtcdVersion took = EtcdVersion.parse("the backup's etcd version", backup.etcdVersion());
    List<String> problems = new ArrayList<>();
    versions.forEach(
        (member, version) -> {
          if (EtcdVersion.find(version).map(took::minorAbove).orElse(false)) {
            problems.add(
                ("member %s would run etcd %s, older than the %s that took backup %s: an older"
                        + " minor version cannot run newer data")
                    .formatted(member, version, backup.etcdVersion(), backup.id()));
          }
        });
    return problems;
  }

  static RuntimeException refused(RestoreRun run, List<String> problems) {
    return Refusal.of(run.what(), problems, FailureType.RestoreRefused);
  }
}
