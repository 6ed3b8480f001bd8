package io.etcdrunbooks.api;

import io.etcdrunbooks.api.auth.Caller;
import io.etcdrunbooks.api.auth.Role;
import io.etcdrunbooks.workflows.common.Approver;
import io.micronaut.context.annotation.Value;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowExecutionDescription;
import jakarta.inject.Singleton;
import java.util.Optional;

/**
 * Who may approve which runbook ({@link Approver}, whose rule the waiting runbook names too).
 * RecoverQuorum throws data away, so only an admin approves it, and with {@code
 * runbooks.approvals.recover-quorum-second-person: true} not the one who started it. Every other
 * runbook takes the approve route's own role (operator).
 */
@Singleton
public final class ApprovalRules {

  private final WorkflowClient client;
  private final boolean secondPerson;

  public ApprovalRules(
      WorkflowClient client,
      @Value("${runbooks.approvals.recover-quorum-second-person:false}") boolean secondPerson) {
    this.client = client;
    this.secondPerson = secondPerson;
  }

  /** Why this caller may not approve the runbook, or empty when they may. */
  public Optional<String> whyNot(String workflowId, Caller caller) {
    WorkflowExecutionDescription run = client.newUntypedWorkflowStub(workflowId).describe();
    if (Approver.forRunbook(run.getWorkflowType()) != Approver.ADMIN) return Optional.empty();
    if (caller == null || caller.role() != Role.ADMIN) {
      return Optional.of(
          "only an admin approves RecoverQuorum (it rebuilds the cluster from one member and"
              + " loses what only the others had)");
    }
    String startedBy = (String) run.getMemo(RunbookStarter.STARTED_BY, String.class);
    if (secondPerson && caller.name().equals(startedBy)) {
      return Optional.of(
          "RecoverQuorum needs a second person: %s started it, another admin approves it"
              .formatted(startedBy));
    }
    return Optional.empty();
  }
}
