package io.etcdrunbooks.api.testing;

import io.etcdrunbooks.workflows.common.Phase;
import io.etcdrunbooks.workflows.common.Progress;
import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import io.temporal.workflow.Workflow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * An UpgradeCluster that touches nothing: it waits until approved and keeps every signal it gets,
 * with who sent it, in its progress message (an approval also in its memo, as the runbooks keep
 * it). For API tests that are about who may reach a runbook, not about etcd.
 */
public final class FakeUpgrade implements UpgradeClusterWorkflow {

  private final List<String> signals = new ArrayList<>();
  private String cluster = "";
  private boolean approved;

  @Override
  public UpgradeResult upgrade(UpgradeRequest request) {
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
    // as a real runbook keeps its controls, for who reads them (the Slack approvals channel)
    Workflow.upsertMemo(Map.of(RunbookWorkflow.CONTROLS_MEMO, List.copyOf(signals)));
  }
}
