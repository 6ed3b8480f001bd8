package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.model.EtcdVersion;
import java.util.List;

/** The ladder from the running version to the target, one minor version at a time. */
public record UpgradePlan(
    EtcdVersion fromVersion, EtcdVersion targetVersion, List<LadderStep> steps) {}
