package io.etcdrunbooks.api.testing;

import io.etcdrunbooks.workflows.common.RunbookWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;

/**
 * An UpgradeCluster that touches nothing: it waits at the runbooks' own approval gate (so the
 * controls, their validators and the memo of who sent them are the real ones) and ends once
 * approved. For API tests that are about who may reach a runbook, not about etcd.
 */
public final class FakeUpgrade extends RunbookWorkflow implements UpgradeClusterWorkflow {

  public FakeUpgrade() {
    super(TYPE);
  }

  @Override
  public UpgradeResult upgrade(UpgradeRequest request) {
    return runFor(
        request.cluster(),
        () -> {
          awaitApproval("the first member", () -> false);
          return null;
        });
  }
}
