package io.etcdrunbooks.api;

import io.etcdrunbooks.api.auth.Caller;
import io.etcdrunbooks.workflows.common.ApprovalSigning;
import io.etcdrunbooks.workflows.common.ApprovalToken;
import io.etcdrunbooks.workflows.common.ApproveRequest;
import io.etcdrunbooks.workflows.common.Approver;
import io.etcdrunbooks.workflows.common.ControlOutcome;
import io.etcdrunbooks.workflows.common.ControlRequest;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.Progress;
import io.etcdrunbooks.workflows.common.Runbook;
import io.temporal.client.WorkflowStub;
import io.temporal.client.WorkflowUpdateException;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;

/**
 * Sends the control updates of a runbook ({@link Runbook}) for the API and Slack, after they
 * checked the caller's role: a refusal of the runbook's validator comes back as {@link Refused}
 * with its reason. An approval that needs a role ({@link Approver#needsSignedToken()}) is signed
 * here, over who approves, with the role the caller was found to have.
 */
@Singleton
public final class RunbookControls {

  /** How long a signed approval holds: it is sent at once, so only clock skew needs room. */
  static final Duration TOKEN_LIFETIME = Duration.ofMinutes(5);

  private final ApprovalSigning signing;
  private final Clock clock;

  public RunbookControls(ApprovalSigning signing) {
    this(signing, Clock.systemUTC());
  }

  RunbookControls(ApprovalSigning signing, Clock clock) {
    this.signing = signing;
    this.clock = clock;
  }

  /** The runbook refused the control: the message is its validator's reason. */
  public static final class Refused extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String workflowId;

    Refused(String workflowId, String reason) {
      super(reason);
      this.workflowId = workflowId;
    }

    public String workflowId() {
      return workflowId;
    }
  }

  /**
   * Approves the plan {@code planId}, or, when null, the plan the runbook shows now.
   *
   * @param run the runbook (its run id pinned, for a Slack button)
   */
  public ControlOutcome approve(WorkflowStub run, Caller who, String planId) {
    Progress progress = run.query("progress", Progress.class);
    String plan = planId != null ? planId : progress == null ? "" : progress.approvalPlan();
    ApprovalToken token = null;
    if (progress != null
        && Approver.forRunbook(progress.runbook()).needsSignedToken()
        && signing.required()) {
      token =
          signing.sign(
              run.getExecution().getWorkflowId(),
              plan,
              who.name(),
              who.role().name().toLowerCase(Locale.ROOT),
              clock.millis() + TOKEN_LIFETIME.toMillis());
    }
    return send(run, Runbook.APPROVE_UPDATE, new ApproveRequest(who.name(), plan, token));
  }

  public ControlOutcome pause(WorkflowStub run, String by) {
    return send(run, Runbook.PAUSE_UPDATE, new ControlRequest(by));
  }

  public ControlOutcome resume(WorkflowStub run, String by) {
    return send(run, Runbook.RESUME_UPDATE, new ControlRequest(by));
  }

  private static ControlOutcome send(WorkflowStub run, String update, Object request) {
    try {
      return run.update(update, ControlOutcome.class, request);
    } catch (WorkflowUpdateException e) {
      throw new Refused(run.getExecution().getWorkflowId(), Failures.rootMessage(e));
    }
  }
}
