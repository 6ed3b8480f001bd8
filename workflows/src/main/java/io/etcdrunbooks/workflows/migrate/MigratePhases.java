package io.etcdrunbooks.workflows.migrate;

import static io.etcdrunbooks.workflows.phases.RunbookPhase.always;
import static io.etcdrunbooks.workflows.phases.RunbookPhase.when;

import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.phases.PhaseRunner;

/**
 * The MigrateV2ToV3 runbook, phase by phase. Every change registers its undo first; a failure
 * before the first kube-apiserver reads v3 has the phase runner run them (COMPENSATE): the data dir
 * copies put back, the members and apiservers started again on v2 ({@link MigrateFailure}).
 */
public final class MigratePhases {

  // long on purpose: a declarative table, one entry per phase with its documented description
  public static final PhaseRunner<MigrateRun> RUNNER =
      new PhaseRunner<MigrateRun>(
              always(
                  Phase.DISCOVER,
                  "reads the inventory's members and control-plane hosts, the cluster as its"
                      + " members report it, each kube-apiserver's --etcd-prefix, the v2 keys"
                      + " under it and the v3 store",
                  MigratePreflight::discover),
              always(
                  Phase.PREFLIGHT,
                  "refuses, touching nothing, unless every member is healthy and runs 3.3 or 3.4,"
                      + " the kube-apiservers agree on one --etcd-prefix, the v2 store holds keys"
                      + " under it, the v3 store holds none, every kube-apiserver reads etcd2 and"
                      + " every host can be logged in to",
                  MigratePreflight::run),
              always(
                  Phase.PLAN,
                  "names the keys to migrate (those with a TTL apart), the members and the"
                      + " kube-apiservers it stops, and the v2 prefixes it leaves untouched with"
                      + " their likely owners (flannel, Calico); a dry run ends here",
                  MigratePreflight::plan),
              when(
                  Phase.AWAITING_APPROVAL,
                  "waits for an operator's approve (requireApproval)",
                  run -> run.changes() && run.request.requireApproval(),
                  run ->
                      run.ctx
                          .approval()
                          .awaitApproval(
                              "the kube-apiservers and members are stopped", () -> false)),
              when(
                  Phase.STOP_APISERVERS,
                  "moves every kube-apiserver's manifest aside and waits until it no longer"
                      + " answers: nothing writes to v2 from here on",
                  MigrateRun::changes,
                  MigrateFailure.compensating(MigrateApiServers::stop)),
              when(
                  Phase.STOP_MEMBERS,
                  "stops every member and copies its data dir, checking the copy file by file",
                  MigrateRun::changes,
                  MigrateFailure.compensating(MigrateMembers::stop)),
              when(
                  Phase.MIGRATE,
                  "runs etcdctl migrate offline on the data dir of the member stopped first, with"
                      + " the tool of its own version, and gives every other member a checked"
                      + " copy of that v3 store",
                  MigrateRun::changes,
                  MigrateFailure.compensating(MigrateMembers::migrate)),
              when(
                  Phase.START_MEMBERS,
                  "starts every member and waits until each is healthy",
                  MigrateRun::changes,
                  MigrateFailure.compensating(MigrateMembers::start)),
              when(
                  Phase.LEASES,
                  "gives the keys that have a TTL in v2 leases with the time they have left, and"
                      + " deletes from v3 what v2 expired meanwhile and migrate's copies of the"
                      + " keys outside the prefix",
                  MigrateRun::changes,
                  MigrateFailure.compensating(MigrateMembers::attachLeases)),
              when(
                  Phase.POSTFLIGHT,
                  "every member healthy, every v2 key in v3 with its value (an expired event is"
                      + " expired, not missing), keys without a TTL per prefix equal, every key"
                      + " that had a TTL leased, raft indexes and hashkv equal",
                  MigrateRun::changes,
                  MigrateFailure.compensating(MigratePostflight::run)),
              when(
                  Phase.APISERVERS,
                  "switches every kube-apiserver to --storage-backend=etcd3 and starts it, one"
                      + " host at a time, each healthy before the next; once one is healthy on v3"
                      + " there is no way back to v2",
                  MigrateRun::changes,
                  MigrateFailure.compensating(MigrateApiServers::switchToV3)),
              when(
                  Phase.CLEAR_V2,
                  "deletes the kube-apiservers' prefix, and only it, from the v2 store, so that"
                      + " nothing reads stale v2 data; other prefixes (flannel's, Calico's) stay",
                  MigrateRun::changes,
                  MigrateFailure.compensating(MigratePostflight::clearV2)),
              always(
                  Phase.DONE,
                  "the result: keys migrated, leases, data dir copies, kube-apiservers on v3",
                  MigratePostflight::done))
          .compensatingIn(
              Phase.COMPENSATE,
              "before the first kube-apiserver reads v3: stops the members, puts each data dir"
                  + " copy back, starts the members and the kube-apiservers again on v2",
              new MigrateFailure());

  private MigratePhases() {}
}
