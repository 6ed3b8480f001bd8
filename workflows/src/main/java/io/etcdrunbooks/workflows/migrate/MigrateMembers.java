package io.etcdrunbooks.workflows.migrate;

import io.etcdrunbooks.workflows.activities.EtcdActivities.AwaitMemberRequest;
import io.etcdrunbooks.workflows.activities.MigrationActivities.MemberMigrationRequest;
import io.etcdrunbooks.workflows.activities.MigrationActivities.V3StoreCopyRequest;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.phases.Activities;

/**
 * The members through a migration: each stopped and its data dir copied (STOP_MEMBERS), the first
 * migrated offline and the others given its v3 store (MIGRATE), all started again (START_MEMBERS),
 * leases given (LEASES). The undo of each change is registered before it is made, so that
 * COMPENSATE finds the members stopped when it puts the copies back, and starts them afterwards.
 */
final class MigrateMembers {

  private MigrateMembers() {}

  static void stop(MigrateRun run) {
    ProgressTracker progress = run.ctx.progress();
    Activities activities = run.ctx.activities();
    run.undo.register("start every member", () -> startAll(run));
    for (String m : run.members) {
      progress.member(m);
      progress.run(m + ": stop", () -> activities.host.stopMember(new MemberRef(run.cluster(), m)));
      run.copies.put(
          m,
          progress.record(
              m + ": copy the data dir and check the copy",
              () -> activities.migration.copyDataDir(request(run, m))));
    }
  }

  static void migrate(MigrateRun run) {
    ProgressTracker progress = run.ctx.progress();
    progress.stopIfCancelled("the members are migrated");
    boolean oneStore = MigratePatches.ONE_V3_STORE.applies();
    // stopped first (stop() goes in this order): its log is the shortest, and the others hold it
    String first = run.members.get(0);
    for (String m : run.members) {
      progress.awaitResumed();
      progress.member(m);
      run.undo.register(m + ": data dir copy put back", () -> putBack(run, m));
      if (!oneStore || m.equals(first)) {
        progress.run(
            m + ": etcdctl migrate (etcd " + run.versions.get(m) + ")",
            () -> run.ctx.activities().migration.migrateMember(request(run, m)));
      } else {
        progress.run(
            m + ": the v3 store of " + first,
            () ->
                run.ctx
                    .activities()
                    .migration
                    .copyV3Store(new V3StoreCopyRequest(run.cluster(), first, m, run.migrationId)));
      }
    }
  }

  static void start(MigrateRun run) {
    run.undo.register("stop every member", () -> stopAll(run));
    startAll(run);
  }

  static void attachLeases(MigrateRun run) {
    run.leases =
        run.ctx
            .progress()
            .record(
                "leases for the keys that had a TTL",
                () -> run.ctx.activities().migration.attachLeases(run.scope()));
  }

  private static boolean startAll(MigrateRun run) {
    ProgressTracker progress = run.ctx.progress();
    Activities activities = run.ctx.activities();
    for (String m : run.members) {
      progress.member(m);
      progress.run(
          m + ": start", () -> activities.host.startMember(new MemberRef(run.cluster(), m)));
    }
    for (String m : run.members) {
      progress.run(
          m + ": healthy",
          () ->
              activities.etcdWait.awaitMemberReady(
                  new AwaitMemberRequest(
                      run.cluster(),
                      m,
                      run.versions.get(m),
                      run.request.effectiveMemberTimeoutSeconds())));
    }
    progress.member("");
    return true;
  }

  private static boolean stopAll(MigrateRun run) {
    for (String m : run.members) {
      run.ctx
          .progress()
          .run(
              m + ": stop",
              () -> run.ctx.activities().host.stopMember(new MemberRef(run.cluster(), m)));
    }
    return true;
  }

  private static boolean putBack(MigrateRun run, String m) {
    return run.ctx
        .progress()
        .record(
            m + ": put the data dir copy back",
            () -> run.ctx.activities().migration.putDataDirBack(request(run, m)));
  }

  private static MemberMigrationRequest request(MigrateRun run, String member) {
    return new MemberMigrationRequest(run.cluster(), member, run.migrationId);
  }
}
