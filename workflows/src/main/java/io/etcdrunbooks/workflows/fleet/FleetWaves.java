package io.etcdrunbooks.workflows.fleet;

import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import io.temporal.workflow.Workflow;

/** The WAVES phase: each wave in turn, its clusters upgraded as children. */
final class FleetWaves {

  private FleetWaves() {}

  static void run(FleetRun run) {
    for (int i = 0; i < run.waves.size(); i++) {
      FleetWave wave = run.waves.get(i);
      if (!run.halted.isEmpty()) {
        for (String c : wave.clusters())
          run.set(
              run.outcome(c).with(ClusterOutcome.NOT_STARTED, "the fleet halted: " + run.halted));
        continue;
      }
      run.wave = wave.name();
      run.progress.step("wave " + (i + 1) + " of " + run.waves.size() + ": " + wave.name());
      new ChildRunner(run, "wave " + wave.name(), true)
          .runAll(
              wave.clusters(),
              wave.concurrency(),
              cluster -> {
                run.set(run.outcome(cluster).started(Workflow.currentTimeMillis()));
                return ChildRunner.upgrade(
                    cluster,
                    UpgradeRequest.to(
                        cluster, run.request.targetVersion(), run.request.clusterOptions()));
              },
              (cluster, end) -> upgraded(run, cluster, end),
              () -> !run.halted.isEmpty());
      for (String c : wave.clusters()) {
        if (run.outcome(c).state().equals(ClusterOutcome.PENDING))
          run.set(
              run.outcome(c).with(ClusterOutcome.NOT_STARTED, "the fleet halted: " + run.halted));
      }
      if (run.halted.isEmpty() && FleetPatches.WAVE_GATE.applies()) {
        WaveGate.judge(run, wave);
      }
      run.wave = "";
      boolean more = i + 1 < run.waves.size();
      if (more && run.halted.isEmpty() && run.request.approveBetweenWaves()) {
        FleetWave nextWave = run.waves.get(i + 1);
        run.needApprovalAgain.run();
        run.approval.awaitApproval(
            "wave " + nextWave.name() + " " + nextWave.clusters(), () -> false);
        run.progress.phase(Phase.WAVES);
      }
    }
  }

  /** A cluster judged failed after its upgrade ended, counted against the failure budget. */
  static void failed(FleetRun run, String cluster, String why) {
    run.set(run.outcome(cluster).with(ClusterOutcome.FAILED, why));
    countFailure(run, cluster, why);
  }

  private static void countFailure(FleetRun run, String cluster, String why) {
    int failed = run.inState(ClusterOutcome.FAILED).size();
    run.progress.message(cluster + ": failed: " + why);
    if (failed >= run.request.failureBudget() && run.halted.isEmpty()) {
      run.halted =
          "%d failed cluster(s) %s reached the failure budget of %d; nothing new starts"
              .formatted(failed, run.inState(ClusterOutcome.FAILED), run.request.failureBudget());
    }
  }

  private static void upgraded(FleetRun run, String cluster, ChildRunner.Ended<UpgradeResult> end) {
    long now = Workflow.currentTimeMillis();
    ClusterOutcome was = run.outcome(cluster);
    if (end.busy()) {
      run.set(
          was.ended(ClusterOutcome.BUSY, "another change of the cluster runs: " + end.why(), now));
      run.progress.message(cluster + ": busy with another change, skipped");
      return;
    }
    if (end.failure() != null) {
      run.set(was.ended(ClusterOutcome.FAILED, Failures.rootMessage(end.failure()), now));
      countFailure(run, cluster, Failures.rootMessage(end.failure()));
      return;
    }
    run.set(
        was.ended(
            ClusterOutcome.UPGRADED,
            "members %s, cluster version %s, down times %s"
                .formatted(
                    end.result().memberVersions(),
                    end.result().clusterVersion(),
                    end.result().memberDownTimes().stream()
                        .map(d -> d.member() + " " + d.millis() + " ms")
                        .toList()),
            now));
    run.progress.message(cluster + ": upgraded");
  }
}
