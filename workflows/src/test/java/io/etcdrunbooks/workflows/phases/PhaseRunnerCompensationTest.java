package io.etcdrunbooks.workflows.phases;

import static io.etcdrunbooks.workflows.phases.RunbookPhase.always;
import static io.etcdrunbooks.workflows.testing.RunbookWaits.workflowFailure;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.Runbook;
import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.temporal.client.WorkflowOptions;
import io.temporal.failure.ApplicationFailure;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The phase runner compensates a failed phase: it enters COMPENSATE, runs the run's registered
 * undos newest first (a committed scope's not among them) and hands the outcome to the runbook's
 * failure mapping, whose failure the run ends with.
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class PhaseRunnerCompensationTest {

  private static final String QUEUE = "phase-runner";

  private final TestWorkflowEnvironment env = TestWorkflowEnvironment.newInstance();

  @AfterEach
  void close() {
    env.close();
  }

  @Test
  void aFailedPhaseEntersCompensateRunsTheUndosNewestFirstAndEndsWithTheMappedFailure() {
    String message = failure("two-phases");

    assertThat(message)
        .isEqualTo(
            "mapped: boom in UPGRADE, what=second change; phase COMPENSATE; undone [second, first];"
                + " events [first, second, undo second, undo first]");
  }

  @Test
  void aCommittedScopeIsNotUndoneButTheRunsOtherUndosAre() {
    String message = failure("scopes");

    assertThat(message)
        .isEqualTo(
            "mapped: boom in UPGRADE, what=host-2; phase COMPENSATE; undone [host-2, placed];"
                + " events [placed, host-1, host-2, undo host-2, undo placed]");
  }

  @Test
  void withNothingRegisteredTheMappingIsAskedWithoutEnteringCompensate() {
    String message = failure("nothing");

    assertThat(message)
        .isEqualTo("mapped: boom in UPGRADE, what=nothing; phase UPGRADE; undone []; events []");
  }

  @Test
  void aMappingThatKeepsTheChangesEndsTheRunWithoutUndoing() {
    String message = failure("keep");

    assertThat(message).isEqualTo("kept: boom; phase COMPENSATE; events [first]");
  }

  @Test
  void anUndoThatFailsStopsTheUndoingAndTheMappingIsToldWhere() {
    String message = failure("undo-fails");

    assertThat(message)
        .isEqualTo(
            "mapped: boom in UPGRADE, what=undo fails; phase COMPENSATE; undone []; stopped at"
                + " second (cannot undo) after []; events [first, second]");
  }

  private String failure(String scenario) {
    Worker worker = env.newWorker(QUEUE);
    worker.registerWorkflowImplementationTypes(RunnerWorkflowImpl.class);
    env.start();
    RunnerWorkflow stub =
        env.getWorkflowClient()
            .newWorkflowStub(
                RunnerWorkflow.class, WorkflowOptions.newBuilder().setTaskQueue(QUEUE).build());
    return Failures.rootMessage((RuntimeException) workflowFailure(() -> stub.run(scenario)));
  }

  /** A runbook of two phases, the second failing as the scenario says. */
  @WorkflowInterface
  public interface RunnerWorkflow extends Runbook {
    @WorkflowMethod
    String run(String scenario);
  }

  static final class Run {
    final RunContext ctx;
    final String scenario;
    final List<String> events = new ArrayList<>();

    Run(RunContext ctx, String scenario) {
      this.ctx = ctx;
      this.scenario = scenario;
    }

    void change(String what) {
      ctx.undos().register(what, undo(what));
      events.add(what);
    }

    java.util.function.BooleanSupplier undo(String what) {
      return () -> {
        events.add("undo " + what);
        return true;
      };
    }
  }

  static final PhaseRunner<Run> RUNNER =
      new PhaseRunner<Run>(
              always(Phase.PLAN, "the first change", PhaseRunnerCompensationTest::first),
              always(Phase.UPGRADE, "the second, failing", PhaseRunnerCompensationTest::second))
          .compensatingIn(Phase.COMPENSATE, "undoes the run", new Mapping());

  private static void first(Run run) {
    switch (run.scenario) {
      case "two-phases", "keep" -> run.change("first");
      case "undo-fails" -> run.ctx.undos().register("first", run.undo("first"));
      case "scopes" -> run.change("placed");
      default -> {}
    }
  }

  private static void second(Run run) {
    ApplicationFailure boom = ApplicationFailure.newNonRetryableFailure("boom", "Boom");
    switch (run.scenario) {
      case "two-phases" -> {
        run.change("second");
        throw run.ctx.undos().failed(boom, "second change");
      }
      case "scopes" -> {
        Compensation.Scope host1 = run.ctx.undos().scope();
        host1.register("host-1", run.undo("host-1"));
        run.events.add("host-1");
        host1.commit();
        Compensation.Scope host2 = run.ctx.undos().scope();
        host2.register("host-2", run.undo("host-2"));
        run.events.add("host-2");
        throw run.ctx.undos().failed(boom, "host-2");
      }
      case "keep" -> throw run.ctx.undos().failed(boom, "keep");
      case "undo-fails" -> {
        run.events.add("first");
        run.ctx
            .undos()
            .register(
                "second",
                () -> {
                  throw new IllegalStateException("cannot undo");
                });
        run.events.add("second");
        throw run.ctx.undos().failed(boom, "undo fails");
      }
      default -> throw run.ctx.undos().failed(boom, "nothing");
    }
  }

  static final class Mapping implements FailureMapping<Run> {
    @Override
    public Optional<RuntimeException> insteadOfUndos(Run run, PhaseFailed failed) {
      if (!failed.what().equals("keep")) return Optional.empty();
      return Optional.of(
          ApplicationFailure.newNonRetryableFailure(
              "kept: %s; phase %s; events %s"
                  .formatted(
                      Failures.rootMessage(failed.failure()),
                      run.ctx.progress().phase(),
                      run.events),
              "Kept"));
    }

    @Override
    public RuntimeException failure(Run run, PhaseFailed failed, Compensation.Outcome outcome) {
      String stopped =
          outcome
              .stoppedAt()
              .map(
                  e ->
                      "; stopped at %s (%s) after %s"
                          .formatted(e.what(), e.getCause().getMessage(), e.undoneBefore()))
              .orElse("");
      return ApplicationFailure.newNonRetryableFailure(
          "mapped: %s in UPGRADE, what=%s; phase %s; undone %s%s; events %s"
              .formatted(
                  Failures.rootMessage(failed.failure()),
                  failed.what(),
                  run.ctx.progress().phase(),
                  outcome.undone(),
                  stopped,
                  run.events),
          "Mapped");
    }
  }

  public static final class RunnerWorkflowImpl extends RunbookWorkflow implements RunnerWorkflow {

    public RunnerWorkflowImpl() {
      super("PhaseRunnerCompensationTest");
    }

    @Override
    public String run(String scenario) {
      return runFor(
          "c",
          () -> {
            RUNNER.run(
                new Run(new RunContext(new Activities(), progress, this, "c"), scenario), progress);
            return "done";
          });
    }
  }
}
