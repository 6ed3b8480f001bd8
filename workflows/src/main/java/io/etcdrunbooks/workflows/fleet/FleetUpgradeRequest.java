package io.etcdrunbooks.workflows.fleet;

import io.etcdrunbooks.workflows.common.RunbookOptions;
import java.util.List;

/**
 * Input of the FleetUpgrade runbook, one JSON object so the Temporal Web UI can start it: {@code
 * {"fleet":"prod","selector":"","targetVersion":"3.5.30","canaries":1,"waveLabel":"size",
 * "waveOrder":["small","medium","large"],"concurrency":2,"failureBudget":1,
 * "approveBetweenWaves":false,"memberTimeoutSeconds":0}}.
 *
 * @param fleet the fleet's name: the workflow id's and the inventory's fleets section's
 * @param selector label selector ({@code env=prod,size=small}, {@code *}); blank: the inventory's
 *     selector of {@code fleet}
 * @param targetVersion etcd version every cluster ends on
 * @param canaries how many clusters form the first wave, smallest first
 * @param waveLabel the label whose values make the waves after the canaries (blank: one wave)
 * @param waveOrder the order of those values; values not named come after, by name, and clusters
 *     without the label last
 * @param concurrency clusters upgraded at once in a wave
 * @param failureBudget the fleet halts once this many clusters failed: nothing new starts, the
 *     clusters running finish
 * @param approveBetweenWaves each wave after the first waits for an approval (the approve signal,
 *     the API's approve, Slack's button)
 * @param memberTimeoutSeconds each cluster's member timeout (0: the upgrade's default)
 */
public record FleetUpgradeRequest(
    String fleet,
    String selector,
    String targetVersion,
    int canaries,
    String waveLabel,
    List<String> waveOrder,
    int concurrency,
    int failureBudget,
    boolean approveBetweenWaves,
    int memberTimeoutSeconds) {

  public static final List<String> SIZES = List.of("small", "medium", "large");

  public FleetUpgradeRequest {
    selector = selector == null ? "" : selector;
    waveLabel = waveLabel == null ? "" : waveLabel;
    waveOrder = waveOrder == null ? List.of() : List.copyOf(waveOrder);
  }

  /** One canary, then waves by the {@code size} label (small, medium, large), one at a time. */
  public static FleetUpgradeRequest of(String fleet, String selector, String targetVersion) {
    return new FleetUpgradeRequest(
        fleet, selector, targetVersion, 1, "size", SIZES, 1, 1, false, 0);
  }

  public FleetUpgradeRequest withConcurrency(int clusters) {
    return new FleetUpgradeRequest(
        fleet,
        selector,
        targetVersion,
        canaries,
        waveLabel,
        waveOrder,
        clusters,
        failureBudget,
        approveBetweenWaves,
        memberTimeoutSeconds);
  }

  public FleetUpgradeRequest withCanaries(int clusters) {
    return new FleetUpgradeRequest(
        fleet,
        selector,
        targetVersion,
        clusters,
        waveLabel,
        waveOrder,
        concurrency,
        failureBudget,
        approveBetweenWaves,
        memberTimeoutSeconds);
  }

  public FleetUpgradeRequest withWavesBy(String label, List<String> order) {
    return new FleetUpgradeRequest(
        fleet,
        selector,
        targetVersion,
        canaries,
        label,
        order,
        concurrency,
        failureBudget,
        approveBetweenWaves,
        memberTimeoutSeconds);
  }

  public FleetUpgradeRequest withFailureBudget(int clusters) {
    return new FleetUpgradeRequest(
        fleet,
        selector,
        targetVersion,
        canaries,
        waveLabel,
        waveOrder,
        concurrency,
        clusters,
        approveBetweenWaves,
        memberTimeoutSeconds);
  }

  public FleetUpgradeRequest withApprovalBetweenWaves() {
    return new FleetUpgradeRequest(
        fleet,
        selector,
        targetVersion,
        canaries,
        waveLabel,
        waveOrder,
        concurrency,
        failureBudget,
        true,
        memberTimeoutSeconds);
  }

  public FleetUpgradeRequest withMemberTimeoutSeconds(int seconds) {
    return new FleetUpgradeRequest(
        fleet,
        selector,
        targetVersion,
        canaries,
        waveLabel,
        waveOrder,
        concurrency,
        failureBudget,
        approveBetweenWaves,
        seconds);
  }

  /** What is wrong with the request, before anything is read; empty when nothing. */
  public List<String> problems() {
    List<String> problems = new java.util.ArrayList<>();
    if (fleet == null || !fleet.matches("[a-z0-9][a-z0-9-]{0,62}"))
      problems.add("fleet '" + fleet + "' is not a name of lower-case letters, digits and -");
    if (targetVersion == null || !targetVersion.matches("\\d+\\.\\d+\\.\\d+"))
      problems.add("targetVersion '" + targetVersion + "' is not major.minor.patch");
    if (concurrency < 1) problems.add("concurrency " + concurrency + " is under 1");
    if (failureBudget < 1) problems.add("failureBudget " + failureBudget + " is under 1");
    if (canaries < 0) problems.add("canaries " + canaries + " is negative");
    if (memberTimeoutSeconds < 0) problems.add("memberTimeoutSeconds is negative");
    return problems;
  }

  RunbookOptions clusterOptions() {
    return RunbookOptions.defaults().withMemberTimeoutSeconds(memberTimeoutSeconds);
  }
}
