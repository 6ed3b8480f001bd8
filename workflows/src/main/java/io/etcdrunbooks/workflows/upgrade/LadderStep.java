package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.model.EtcdVersion;
import java.util.List;

/**
 * One rung of the upgrade ladder: every member moves from one version to the next, in this order.
 *
 * @param fromVersion version the members leave (the lowest one running when the cluster is mixed)
 * @param toVersion version the members end on
 * @param memberOrder followers first, the leader (as discovered when planning) last
 */
public record LadderStep(EtcdVersion fromVersion, EtcdVersion toVersion, List<String> memberOrder) {

  public String label() {
    return fromVersion + " -> " + toVersion;
  }

  public String toMinor() {
    return toVersion.minorLabel();
  }
}
