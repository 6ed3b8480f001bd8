package io.etcdrunbooks.workflows.recover;

import static io.etcdrunbooks.workflows.phases.RunbookPhase.always;
import static io.etcdrunbooks.workflows.phases.RunbookPhase.when;

import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.phases.PhaseRunner;

/**
 * The RecoverQuorum runbook, phase by phase: DISCOVER, WAITING and PREFLIGHT are in {@link
 * RecoverDiscovery}, the changes in {@link RecoverSteps}.
 */
public final class RecoverPhases {

  // long on purpose: a declarative table, one entry per phase with its documented description
  private static final PhaseRunner<RecoverRun> PHASES =
      new PhaseRunner<RecoverRun>(
          always(
              Phase.DISCOVER,
              "checks the request (acknowledgeDataLoss is required), then reads the inventory and"
                  + " every member's status, each from that member alone",
              RecoverDiscovery::discover),
          always(
              Phase.WAITING,
              "the loss must hold for confirmLossSeconds (default 60), looked at every 5 s: no"
                  + " linearizable read succeeds through any member and fewer than a quorum"
                  + " answer; quorum seen at any look refuses, touching nothing (a partition that"
                  + " heals is not a loss); a dry run looks once",
              RecoverDiscovery::confirmLoss),
          always(
              Phase.PREFLIGHT,
              "chooses the survivor, the answering voting member with the highest applied index"
                  + " (or the one asked for; never a learner), reads its revision and the newest"
                  + " verified backup, places each lost member (a replacement asked for, else its"
                  + " own host under a new name), chooses the etcdutl that raises the survivor's"
                  + " revision; refuses, touching nothing, unless the inventory is writable, every"
                  + " host can be logged in to and each rebuilt member's host can take it"
                  + " (directories creatable, service definition placeable, new ports free,"
                  + " certificates), and an etcdutl from 3.5.10 on can be had or the request"
                  + " acknowledges the revision going back (acknowledgeRevisionsBackward); with"
                  + " no member answering, the newest verified backup is the way (none: refused)",
              RecoverDiscovery::preflight),
          always(
              Phase.PLAN,
              "shows what will be lost before anything changes: the survivor's revision against"
                  + " the newest verified backup's, the members rebuilt and where, or the backup"
                  + " restored instead; a dry run ends here",
              RecoverSteps::plan),
          when(
              Phase.AWAITING_APPROVAL,
              "always: waits for an approve (the API lets only an admin approve this runbook),"
                  + " then looks at the cluster again: quorum back, or the survivor gone, refuses",
              RecoverRun::changes,
              RecoverSteps::awaitApproval),
          when(
              Phase.RESTORE,
              "no survivor: the newest verified backup restored through RestoreCluster, as a"
                  + " child under the change id with -restore",
              run -> run.changes() && run.fromBackup(),
              RecoverSteps::restoreFromBackup),
          when(
              Phase.FENCE,
              "before the survivor is touched, every lost member gets a tombstone in the inventory"
                  + " (checked by every later discovery, which stops a fenced member that answers"
                  + " again) and is fenced on its host: etcd stopped, its unit disabled or its"
                  + " manifest moved out of kubelet's directory, its data dir renamed to"
                  + " <dataDir>.fenced-<id> and kept; a lost member whose host cannot be logged in"
                  + " to must be attested in the request's destroyed list (PREFLIGHT refuses"
                  + " otherwise)",
              run -> run.rebuildsFromSurvivor() && run.fencing,
              RecoverFailure.naming(RecoverFencing::fence)),
          when(
              Phase.STOP_APISERVERS,
              "moves every kube-apiserver's manifest aside and waits until it no longer answers",
              RecoverRun::rebuildsFromSurvivor,
              RecoverFailure.naming(RecoverSteps::stopApiServers)),
          when(
              Phase.BACKUP,
              "stops the survivor and copies its data dir to <dataDir>.before-recover-<id>,"
                  + " checked file by file",
              RecoverRun::rebuildsFromSurvivor,
              RecoverFailure.naming(RecoverSteps::copySurvivor)),
          when(
              Phase.FORCE_NEW_CLUSTER,
              "the survivor's data dir rebuilt from its copy as a new cluster of one: etcdutl"
                  + " snapshot restore of the copy's database with --bump-revision 1000000000"
                  + " --mark-compacted and a new cluster token (the survivor's own etcdutl from"
                  + " 3.5.10 on, else the binary source's, chosen in PREFLIGHT, which refuses"
                  + " without one unless acknowledgeRevisionsBackward), then the survivor started"
                  + " and awaited as the leader of a cluster of one: no revision a watcher saw"
                  + " comes again",
              run -> run.rebuildsFromSurvivor() && run.bumpsRevision(),
              RecoverFailure.naming(RecoverRevision::rebuildSurvivor)),
          when(
              Phase.FORCE_NEW_CLUSTER,
              "recoveries started before the revision was raised, or acknowledging it going"
                  + " back: starts the survivor once with --force-new-cluster (set where its flags"
                  + " live, the file kept), waits until it leads a cluster of one, then puts its"
                  + " flags back and restarts it without; the survivor's revision is kept",
              run -> run.rebuildsFromSurvivor() && !run.bumpsRevision(),
              RecoverFailure.naming(RecoverSteps::forceNewCluster)),
          when(
              Phase.APISERVERS,
              "as soon as the survivor leads a cluster of one: each kube-apiserver's"
                  + " --etcd-servers set to the survivor and the apiserver brought back, one host at"
                  + " a time, healthy before the next; the lost members rejoin behind it",
              run -> run.rebuildsFromSurvivor() && run.apiServersEarly,
              RecoverFailure.naming(RecoverSteps::bringApiServersBackOnSurvivor)),
          when(
              Phase.JOIN,
              "one lost member at a time: rebuilt as a new member (a learner promoted once in sync"
                  + " on 3.4 and later) with a fresh data dir, the old one kept aside, and recorded"
                  + " in the inventory in the lost member's place; one that does not join is"
                  + " removed again (COMPENSATE) and the runbook fails naming it and the members"
                  + " still missing, the apiservers running on the survivor; once all have joined,"
                  + " each running apiserver's --etcd-servers set to the inventory's members, one"
                  + " host at a time, healthy before the next",
              RecoverRun::rebuildsFromSurvivor,
              RecoverFailure.naming(RecoverSteps::rebuild)),
          when(
              Phase.APISERVERS,
              "recoveries started before the apiservers came back ahead of JOIN: each"
                  + " kube-apiserver's --etcd-servers set to the inventory's members and the"
                  + " apiserver brought back, one host at a time, healthy before the next",
              run -> run.rebuildsFromSurvivor() && !run.apiServersEarly,
              RecoverFailure.naming(RecoverSteps::bringApiServersBack)),
          when(
              Phase.POSTFLIGHT,
              "every member healthy, no learner, etcd's member list as long as the inventory, raft"
                  + " indexes and hashkv equal",
              RecoverRun::rebuildsFromSurvivor,
              RecoverSteps::postflight),
          always(
              Phase.DONE,
              "kube-system/kubeadm-config's etcd.external.endpoints set to the inventory's members"
                  + " (external etcd with kubernetes.kubeconfig; stacked etcd lists none), then the"
                  + " result: the survivor and its revision, how far it was raised, the backup's, the"
                  + " members rebuilt, the survivor's data dir copy, the apiservers restarted, the"
                  + " loss in words and which watchers must relist",
              RecoverSteps::done));

  public static final PhaseRunner<RecoverRun> RUNNER =
      PHASES.compensatingIn(
          Phase.COMPENSATE,
          "a rebuilt member that did not join is removed from the membership again and its etcd"
              + " stopped, its data dir kept aside; a kube-apiserver that did not come back healthy"
              + " on every member gets its previous manifest back; nothing else is put back (the"
              + " survivor's data dir copy is the way back)",
          new RecoverFailures());

  private RecoverPhases() {}
}
