package io.etcdrunbooks.workflows.upgrade;

import java.util.List;

/** The ladder from the running version to the target, one minor version at a time. */
public record UpgradePlan(String fromVersion, String targetVersion, List<LadderStep> steps) {

  static String minorOf(String version) {
    String[] p = version.split("\\.");
    return p[0] + "." + p[1];
  }
}
