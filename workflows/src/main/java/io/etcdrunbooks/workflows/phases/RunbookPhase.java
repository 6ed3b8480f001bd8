package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.common.Phase;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * One named phase of a runbook, as kubeadm's phase runner has them: its name (the one the progress
 * query, logs, metrics, Slack and docs/runbooks/phases.md show), what it does, when it runs, and
 * its body, which reads and adds to the runbook's run state {@code R}.
 */
public record RunbookPhase<R>(Phase name, String does, Predicate<R> runsWhen, Consumer<R> body) {

  public static <R> RunbookPhase<R> always(Phase name, String does, Consumer<R> body) {
    return new RunbookPhase<>(name, does, run -> true, body);
  }

  public static <R> RunbookPhase<R> when(
      Phase name, String does, Predicate<R> runsWhen, Consumer<R> body) {
    return new RunbookPhase<>(name, does, runsWhen, body);
  }
}
