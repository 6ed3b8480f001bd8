package io.etcdrunbooks.workflows;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.phases.PhaseRunner;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Everything the worker, the API, Slack and the docs need to know about one runbook. {@link
 * RunbookCatalog} lists them all; a new runbook is its package plus one line there.
 *
 * @param type the workflow type, as Temporal and the docs name it
 * @param workflow the workflow interface; its one workflow method takes {@code request}
 * @param implementation what the worker registers for it
 * @param request the input record: the JSON body of its REST endpoint and of the Temporal Web UI
 * @param phases its phases, in order, as docs/runbooks/phases.md shows them
 * @param failures the failure types it ends with
 * @param starter the least role that may start it (the API's and Slack's)
 * @param target what it acts on, named by its endpoint's path and by the request's field of that
 *     name
 * @param path its endpoint: {@code POST /api/v1/clusters/{cluster}/<path>} (or {@code
 *     /fleets/{fleet}/<path>})
 * @param slackVerb the slash command's verb that starts it; empty where Slack does not
 * @param workflowId the workflow id of a run on a target
 * @param changesCluster whether it holds the cluster's change id: then a dry run gets an id of its
 *     own and a start is refused, naming the running one, while another change runs
 * @param fromCaller a REST body as the API starts it, given the caller's name: what only the API
 *     decides (who triggered it) or only the run itself carries (a schedule's next round) is set
 *     here, whatever the body says
 */
public record RunbookDefinition<R>(
    String type,
    Class<?> workflow,
    Class<?> implementation,
    Class<R> request,
    List<PhaseRunner.Described> phases,
    List<FailureType> failures,
    Starter starter,
    Target target,
    String path,
    Optional<String> slackVerb,
    Function<String, String> workflowId,
    boolean changesCluster,
    BiFunction<R, String, R> fromCaller) {

  /** Who may start a runbook: the API's roles of the same name. */
  public enum Starter {
    OPERATOR,
    ADMIN
  }

  /** What a runbook acts on; {@link #field} names it in the request and in the path. */
  public enum Target {
    CLUSTER("cluster"),
    FLEET("fleet");

    private final String field;

    Target(String field) {
      this.field = field;
    }

    public String field() {
      return field;
    }
  }

  /**
   * A runbook on one cluster that holds its change id, started by operators at {@code path}, not
   * from Slack, taking its request as sent.
   */
  public static <R> RunbookDefinition<R> changing(
      String type,
      Class<?> workflow,
      Class<?> implementation,
      Class<R> request,
      PhaseRunner<?> phases,
      List<FailureType> failures,
      String path,
      Function<String, String> workflowId) {
    return new RunbookDefinition<>(
        type,
        workflow,
        implementation,
        request,
        phases.described(),
        failures,
        Starter.OPERATOR,
        Target.CLUSTER,
        path,
        Optional.empty(),
        workflowId,
        true,
        (r, by) -> r);
  }

  /** As {@link #changing}, under an id of its own that no other change of the cluster holds. */
  public static <R> RunbookDefinition<R> apart(
      String type,
      Class<?> workflow,
      Class<?> implementation,
      Class<R> request,
      PhaseRunner<?> phases,
      List<FailureType> failures,
      String path,
      Function<String, String> workflowId) {
    return changing(type, workflow, implementation, request, phases, failures, path, workflowId)
        .withChangesCluster(false);
  }

  public RunbookDefinition<R> startedBy(Starter role) {
    return with(c -> c.starter = role);
  }

  public RunbookDefinition<R> on(Target on) {
    return with(c -> c.target = on);
  }

  public RunbookDefinition<R> inSlack(String verb) {
    return with(c -> c.slackVerb = Optional.of(verb));
  }

  public RunbookDefinition<R> fromCaller(BiFunction<R, String, R> asStarted) {
    return with(c -> c.fromCaller = asStarted);
  }

  private RunbookDefinition<R> withChangesCluster(boolean changes) {
    return with(c -> c.changesCluster = changes);
  }

  /** The fields the catalog's lines set after {@link #changing}, to copy one of them changed. */
  private static final class Settings<R> {
    Starter starter;
    Target target;
    Optional<String> slackVerb;
    boolean changesCluster;
    BiFunction<R, String, R> fromCaller;
  }

  private RunbookDefinition<R> with(Consumer<Settings<R>> change) {
    Settings<R> c = new Settings<>();
    c.starter = starter;
    c.target = target;
    c.slackVerb = slackVerb;
    c.changesCluster = changesCluster;
    c.fromCaller = fromCaller;
    change.accept(c);
    return new RunbookDefinition<>(
        type,
        workflow,
        implementation,
        request,
        phases,
        failures,
        c.starter,
        c.target,
        path,
        c.slackVerb,
        workflowId,
        c.changesCluster,
        c.fromCaller);
  }

  /** The workflow id of a run on {@code target}. */
  public String workflowIdOf(String on) {
    return workflowId.apply(on);
  }

  @Override
  public String toString() {
    return type;
  }
}
