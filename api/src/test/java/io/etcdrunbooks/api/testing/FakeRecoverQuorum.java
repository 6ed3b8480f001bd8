package io.etcdrunbooks.api.testing;

import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.recover.RecoverQuorumRequest;
import io.etcdrunbooks.workflows.recover.RecoverQuorumResult;
import io.etcdrunbooks.workflows.recover.RecoverQuorumWorkflow;

/**
 * A RecoverQuorum that touches nothing: it waits at the runbooks' own approval gate, whose rule (an
 * admin's signed approval) is the real one, and ends once approved. For API tests about who may
 * approve it.
 */
public final class FakeRecoverQuorum extends RunbookWorkflow implements RecoverQuorumWorkflow {

  public FakeRecoverQuorum() {
    super(TYPE);
  }

  @Override
  public RecoverQuorumResult recover(RecoverQuorumRequest request) {
    return runFor(
        request.cluster(),
        () -> {
          awaitApproval("the lost members are fenced", () -> false);
          return null;
        });
  }
}
