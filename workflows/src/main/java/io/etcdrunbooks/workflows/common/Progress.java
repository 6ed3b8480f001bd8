package io.etcdrunbooks.workflows.common;

import java.util.List;

/**
 * A runbook's progress as its query returns it.
 *
 * @param runbook runbook type, for example UpgradeCluster
 * @param cluster cluster name
 * @param phase current phase (see {@link Phase})
 * @param step current ladder step or sub-task, for example "3.4.23 -> 3.5.16"
 * @param member member in hand, empty between members
 * @param paused a pause signal is holding the runbook between members
 * @param completed finished steps with their timings, oldest first
 * @param message last notable event, for example the reason of a failure
 * @param downTimes each member restart's down time (stopped until ready), oldest first
 * @param approvalPlan the id of the plan waiting for approval (what the {@code approveRun} update
 *     names), empty when the runbook waits for none
 * @param phaseSinceMillis when the runbook entered its phase (epoch milliseconds, the workflow's
 *     clock): what the stuck-phase and approval-wait alerts compare with the time; 0 from a worker
 *     that predates it
 */
public record Progress(
    String runbook,
    String cluster,
    Phase phase,
    String step,
    String member,
    boolean paused,
    List<CompletedStep> completed,
    String message,
    List<MemberDownTime> downTimes,
    String approvalPlan,
    long phaseSinceMillis) {}
