package io.etcdrunbooks.workflows.migrate;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.ApiServerBackends;
import io.etcdrunbooks.workflows.phases.CertificateExpiry;
import io.etcdrunbooks.workflows.phases.ClusterChecks;
import io.etcdrunbooks.workflows.phases.Discovery;
import io.etcdrunbooks.workflows.phases.HostAccessPreflight;
import io.etcdrunbooks.workflows.phases.Refusal;
import io.temporal.failure.ActivityFailure;
import java.util.ArrayList;
import java.util.List;

/** The migration's DISCOVER, PREFLIGHT and PLAN: everything read, nothing touched. */
final class MigratePreflight {

  /** {@code etcdctl migrate} is in 3.0 to 3.4; 3.5 removed it. */
  private static final EtcdVersion FIRST_WITHOUT_MIGRATE = EtcdVersion.parse("3.5.0");

  private MigratePreflight() {}

  static void discover(MigrateRun run) {
    ClusterState state =
        Discovery.discoverOrRefuse(
            run.ctx.activities(),
            run.ctx.progress(),
            run.cluster(),
            run.what(),
            FailureType.MigrationRefused);
    run.ctx.progress().message("found: " + state.members().size() + " members");
    state.members().forEach(m -> run.versions.put(m.name(), m.serverVersion()));
    run.members =
        run.ctx.activities().inventory.members(run.ctx.ref()).stream()
            .map(MemberPlacement::name)
            .toList();
    run.controlPlane = run.ctx.activities().apiServer.controlPlaneHosts(run.ctx.ref());
    run.survey =
        run.ctx
            .progress()
            .record("v2 and v3 stores", () -> run.ctx.activities().migration.survey(run.ctx.ref()));
    run.state = state;
  }

  /** Every problem at once, or none. */
  static void run(MigrateRun run) {
    List<String> problems = new ArrayList<>(ClusterChecks.memberProblems(run.state, "migrating"));
    problems.addAll(CertificateExpiry.problems(run.state));
    for (MemberStatus m : run.state.members()) {
      EtcdVersion.find(m.serverVersion())
          .filter(v -> v.compareTo(FIRST_WITHOUT_MIGRATE) >= 0)
          .ifPresent(
              v ->
                  problems.add(
                      ("member %s runs etcd %s, which has no v2 store to migrate from (etcdctl"
                              + " migrate ends with 3.4): a cluster with v2 data never got past"
                              + " 3.4; check the inventory names the right cluster")
                          .formatted(m.name(), v)));
    }
    storeProblems(run, problems);
    apiServerProblems(run, problems);
    problems.addAll(
        HostAccessPreflight.problems(
            run.ctx.activities(), run.ctx.progress(), run.cluster(), List.of(), true));
    if (!problems.isEmpty()) {
      throw Refusal.of(run.what(), problems, FailureType.MigrationRefused);
    }
  }

  private static void storeProblems(MigrateRun run, List<String> problems) {
    var survey = run.survey;
    if (survey.v2ServedBy().isEmpty()) {
      problems.add(
          "no member serves the v2 API, so the v2 store cannot be read: start the members with"
              + " --enable-v2=true (3.4) and run the migration again");
    } else if (survey.v2Keys() == 0) {
      problems.add(
          "the v2 store holds no keys: there is nothing to migrate (kube-apiserver's"
              + " --storage-backend=etcd3 needs no migration)");
    }
    if (survey.v3Keys() > 0) {
      problems.add(
          ("the v3 store already holds %d keys (revision %d): etcdctl migrate writes the v2 keys"
                  + " at their v2 indexes as v3 revisions, which would interleave with the keys"
                  + " there; find out what wrote them, delete them or restore the v3 store empty,"
                  + " then run the migration again")
              .formatted(survey.v3Keys(), survey.v3Revision()));
    }
  }

  private static void apiServerProblems(MigrateRun run, List<String> problems) {
    try {
      run.backends.putAll(ApiServerBackends.read(run.ctx, run.controlPlane));
    } catch (ActivityFailure e) {
      problems.add("the kube-apiservers' manifests could not be read: " + Failures.rootMessage(e));
      return;
    }
    run.backends.forEach(
        (host, backend) -> {
          if (!MigrateRun.V2_BACKEND.equals(backend)) {
            problems.add(
                ("kube-apiserver on %s reads %s, not etcd2: it does not serve the v2 data, so"
                        + " migrating it would change nothing it reads; check which apiservers use"
                        + " this cluster")
                    .formatted(
                        host, backend.isEmpty() ? "etcd3 (no --storage-backend flag)" : backend));
          }
        });
  }

  static void plan(MigrateRun run) {
    var survey = run.survey;
    run.ctx
        .progress()
        .message(
            ("migrate %d v2 keys (%d with a TTL, to be leased) by prefix %s on members %s (etcd"
                    + " %s); kube-apiservers stopped meanwhile, then switched to etcd3: %s; data"
                    + " dir copies named *.before-migrate-%s")
                .formatted(
                    survey.v2Keys(),
                    survey.v2KeysWithTtl(),
                    survey.v2Prefixes(),
                    run.members,
                    run.versions.values().stream().distinct().toList(),
                    run.controlPlane,
                    run.migrationId));
  }
}
