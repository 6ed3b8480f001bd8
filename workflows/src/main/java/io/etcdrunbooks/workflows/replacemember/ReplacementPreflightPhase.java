package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.activities.NewMemberActivities.NewMemberRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.ProgressTracker;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.phases.Activities;
import io.etcdrunbooks.workflows.phases.HostAccessPreflight;
import io.etcdrunbooks.workflows.phases.Refusal;
import io.temporal.failure.ActivityFailure;
import java.util.ArrayList;
import java.util.List;

/**
 * The PREFLIGHT phase of a replacement: what discovery found ({@link ReplacementPreflight}), then
 * the inventory must be writable, every host but the failed member's usable, and the new member's
 * host able to run the cluster's version. Every problem is listed at once; with any, the runbook
 * refuses, touching nothing.
 */
final class ReplacementPreflightPhase {

  private ReplacementPreflightPhase() {}

  static void run(ReplaceRun run) {
    Activities activities = run.ctx.activities();
    ProgressTracker progress = run.ctx.progress();
    List<String> problems = new ArrayList<>(run.found.problems());
    try {
      progress.run("inventory writable", () -> activities.inventory.checkWritable(run.ctx.ref()));
    } catch (ActivityFailure e) {
      problems.add(Failures.rootMessage(e));
    }
    // the failed member's host may be down: it is not required; the replacement's host is checked
    // next
    problems.addAll(
        HostAccessPreflight.problems(
            activities, progress, run.cluster(), List.of(run.failed().name()), true));
    if (problems.isEmpty()) {
      MemberPlacement replacement = run.replacement();
      try {
        progress.run(
            "host of %s (%s) usable for etcd %s"
                .formatted(replacement.name(), replacement.host(), run.version),
            () ->
                activities.newMember.checkHost(
                    new NewMemberRequest(run.cluster(), replacement, run.version)));
      } catch (ActivityFailure e) {
        problems.add(Failures.rootMessage(e));
      }
    }
    if (!problems.isEmpty()) throw Refusal.of(run.what(), problems, FailureType.ReplaceRefused);
    run.learner = EtcdVersion.find(run.version).filter(EtcdVersion::supportsLearners).isPresent();
  }
}
