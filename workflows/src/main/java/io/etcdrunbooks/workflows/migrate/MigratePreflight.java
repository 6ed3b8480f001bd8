package io.etcdrunbooks.workflows.migrate;

import io.etcdrunbooks.workflows.activities.ApiServerActivities.ControlPlaneRef;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.model.V2DataOwners;
import io.etcdrunbooks.workflows.phases.ApiServerBackends;
import io.etcdrunbooks.workflows.phases.CertificateExpiry;
import io.etcdrunbooks.workflows.phases.ClusterChecks;
import io.etcdrunbooks.workflows.phases.Discovery;
import io.etcdrunbooks.workflows.phases.HostAccessPreflight;
import io.etcdrunbooks.workflows.phases.Refusal;
import io.temporal.failure.ActivityFailure;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The migration's DISCOVER, PREFLIGHT and PLAN: everything read, nothing touched. */
final class MigratePreflight {

  /** kube-apiserver's default --etcd-prefix. */
  static final String DEFAULT_ETCD_PREFIX = "/registry";

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
    if (MigratePatches.ETCD_PREFIX.applies()) readEtcdPrefix(run);
    run.survey =
        run.ctx
            .progress()
            .record("v2 and v3 stores", () -> run.ctx.activities().migration.survey(run.scope()));
    run.state = state;
  }

  /**
   * The apiservers' common --etcd-prefix; when they disagree or a manifest cannot be read the
   * preflight refuses, and meanwhile the default keeps the survey to Kubernetes' keys.
   */
  private static void readEtcdPrefix(MigrateRun run) {
    Map<String, String> byHost = new LinkedHashMap<>();
    try {
      for (String host : run.controlPlane) {
        String flag =
            run.ctx
                .progress()
                .record(
                    host + ": --etcd-prefix",
                    () ->
                        run.ctx
                            .activities()
                            .apiServer
                            .etcdPrefix(new ControlPlaneRef(run.cluster(), host)));
        byHost.put(host, normalized(flag));
      }
    } catch (ActivityFailure e) {
      run.etcdPrefixProblem =
          "the kube-apiservers' --etcd-prefix could not be read, so the keys that are"
              + " Kubernetes' cannot be told from flannel's or Calico's: "
              + Failures.rootMessage(e);
    }
    List<String> prefixes = byHost.values().stream().distinct().toList();
    run.etcdPrefix = prefixes.size() == 1 ? prefixes.get(0) : DEFAULT_ETCD_PREFIX;
    if (prefixes.size() > 1) {
      run.etcdPrefixProblem =
          ("the kube-apiservers disagree on --etcd-prefix (%s), so it is not known which keys are"
                  + " Kubernetes'; make their manifests agree, then run the migration again")
              .formatted(byHost);
    } else if (run.etcdPrefix.equals("/")) {
      run.etcdPrefixProblem =
          ("the kube-apiservers on %s use --etcd-prefix=/, so Kubernetes' keys cannot be told"
                  + " from flannel's or Calico's; migrate by hand (docs/runbooks/migrate-v2-to-v3.md)")
              .formatted(byHost.keySet());
    }
  }

  /** "" (the flag absent) -> "/registry"; "registry/" -> "/registry", as v2 keys start with '/'. */
  static String normalized(String flag) {
    String prefix = flag == null || flag.isBlank() ? DEFAULT_ETCD_PREFIX : flag.strip();
    if (!prefix.startsWith("/")) prefix = "/" + prefix;
    while (prefix.length() > 1 && prefix.endsWith("/")) {
      prefix = prefix.substring(0, prefix.length() - 1);
    }
    return prefix;
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
    if (run.etcdPrefixProblem != null) problems.add(run.etcdPrefixProblem);
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
          (run.etcdPrefix == null
                  ? "the v2 store holds no keys"
                  : "the v2 store holds no keys under --etcd-prefix " + run.etcdPrefix)
              + ": there is nothing to migrate (kube-apiserver's --storage-backend=etcd3 needs no"
              + " migration)"
              + untouched(survey.v2Untouched()));
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
            ("migrate %d v2 keys%s (%d with a TTL, to be leased) by prefix %s on members %s (etcd"
                    + " %s); kube-apiservers stopped meanwhile, then switched to etcd3: %s; data"
                    + " dir copies named *.before-migrate-%s%s")
                .formatted(
                    survey.v2Keys(),
                    run.etcdPrefix == null ? "" : " under --etcd-prefix " + run.etcdPrefix,
                    survey.v2KeysWithTtl(),
                    survey.v2Prefixes(),
                    run.members,
                    run.versions.values().stream().distinct().toList(),
                    run.controlPlane,
                    run.migrationId,
                    untouched(survey.v2Untouched())));
  }

  /** "; left untouched in v2: /coreos.com: 2 keys, likely flannel (...)", or "" when none. */
  private static String untouched(Map<String, Long> byPrefix) {
    if (byPrefix == null || byPrefix.isEmpty()) return "";
    return "; left untouched in v2 (not Kubernetes'): " + V2DataOwners.describe(byPrefix);
  }
}
