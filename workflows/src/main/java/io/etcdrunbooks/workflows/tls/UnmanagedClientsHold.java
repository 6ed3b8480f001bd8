package io.etcdrunbooks.workflows.tls;

import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.ClientConnections;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.temporal.failure.ActivityFailure;
import io.temporal.failure.CanceledFailure;
import java.util.ArrayList;
import java.util.List;

/**
 * Before the step that cuts plain http (enabling TLS on client URLs) or the old CA (rotate-ca) off:
 * every member's client connections listed, and the runbook held for an approval when one comes
 * from an address the inventory does not know (a CNI's kvstore, Prometheus scraping :2379, a backup
 * job, an apiserver's --etcd-servers-overrides) or could not be listed: those clients lose etcd at
 * that step, and the runbook cannot move them. A cancel at the hold undoes the whole run (the phase
 * runner, {@link TlsFailures}).
 */
final class UnmanagedClientsHold {

  static final String STEP = "hold for unmanaged clients";

  private UnmanagedClientsHold() {}

  /**
   * @param phase the phase the runbook is in, entered again once approved
   * @param cut what the next step cuts off, for the plan and the approval
   */
  static void before(TlsRun run, Phase phase, String cut) {
    if (!TlsPatches.UNMANAGED_CLIENTS_HOLD.applies()) return;
    ProgressTracker progress = run.ctx.progress();
    List<String> found = unmanaged(run);
    if (found.isEmpty()) {
      progress.skipped(STEP, "every connected client is a member, a kube-apiserver or the worker");
      return;
    }
    String plan =
        "%s; clients the inventory does not know of are connected: %s"
            .formatted(cut, String.join("; ", found));
    if (run.request.ignoreUnmanagedClients()) {
      progress.message(plan);
      progress.skipped(STEP, "ignoreUnmanagedClients: " + String.join("; ", found));
      return;
    }
    run.needApprovalAgain.run();
    try {
      run.ctx.approval().awaitApproval(plan, () -> false);
    } catch (CanceledFailure e) {
      throw run.undo.failed(e, new TlsFailures.HoldCancelled(found));
    }
    progress.phase(phase);
  }

  /**
   * A dry run of a mode that cuts clients off: the plan also names the clients the cutting step
   * would hold for, as connected now.
   */
  static void inPlan(TlsRun run) {
    if (!run.request.dryRun() || !(run.enablingClients() || run.rotatingCa())) return;
    if (!TlsPatches.UNMANAGED_CLIENTS_HOLD.applies()) return;
    ProgressTracker progress = run.ctx.progress();
    List<String> found = unmanaged(run);
    progress.message(
        progress.snapshot().message()
            + (found.isEmpty()
                ? "; connected now: only members, kube-apiservers and the worker"
                : "; connected now, clients the inventory does not know of (the run would hold for"
                    + " an approval before cutting them off, unless ignoreUnmanagedClients): "
                    + String.join("; ", found)));
  }

  /** Each member with unmanaged clients, or whose connections could not be listed. */
  private static List<String> unmanaged(TlsRun run) {
    List<String> found = new ArrayList<>();
    for (String member : run.members) {
      ClientConnections seen = list(run, member);
      if (seen.unreadable() != null) {
        found.add(member + ": its connections could not be listed (" + seen.unreadable() + ")");
      } else if (!seen.unmanaged().isEmpty()) {
        found.add(
            member
                + ": "
                + seen.unmanaged().stream().map(ClientConnections.Client::describe).toList());
      }
    }
    return found;
  }

  private static ClientConnections list(TlsRun run, String member) {
    try {
      return run.ctx
          .progress()
          .record(
              member + ": client connections",
              () ->
                  run.ctx
                      .activities()
                      .host
                      .clientConnections(new MemberRef(run.cluster(), member)));
    } catch (ActivityFailure e) {
      return ClientConnections.unreadable(member, List.of(), Failures.rootMessage(e));
    }
  }
}
