package io.etcdrunbooks.api.testing;

import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.Progress;
import io.etcdrunbooks.workflows.recover.RecoverQuorumRequest;
import io.etcdrunbooks.workflows.recover.RecoverQuorumResult;
import io.etcdrunbooks.workflows.recover.RecoverQuorumWorkflow;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;

/**
 * A RecoverQuorum that touches nothing: it waits until approved and keeps who approved it in its
 * progress message. For API tests about who may approve it.
 */
public final class FakeRecoverQuorum implements RecoverQuorumWorkflow {

  private final List<String> signals = new ArrayList<>();
  private String cluster = "";
  private boolean approved;

  @Override
  public RecoverQuorumResult recover(RecoverQuorumRequest request) {
    cluster = request.cluster();
    Workflow.await(() -> approved);
    return null;
  }

  @Override
  public Progress progress() {
    return new Progress(
        TYPE,
        cluster,
        Phase.AWAITING_APPROVAL,
        "",
        "",
        false,
        List.of(),
        String.join(",", signals),
        List.of());
  }

  @Override
  public void pause(String by) {
    signals.add("pause by " + by);
  }

  @Override
  public void resume(String by) {
    signals.add("resume by " + by);
  }

  @Override
  public void approve(String by) {
    signals.add("approve by " + by);
    approved = true;
  }
}
