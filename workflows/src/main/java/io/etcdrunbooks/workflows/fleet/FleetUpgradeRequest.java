package io.etcdrunbooks.workflows.fleet;

import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.EtcdVersion;
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
 * @param bakeMinutes after each wave, how long its upgraded clusters run before they are judged and
 *     the next wave may start (0: judged at once)
 * @param skipKubernetesGate judge a wave by the etcd postflight alone, without asking each upgraded
 *     cluster's kube-apiservers whether they are ready or watching its nodes through its Kubernetes
 *     API
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
    int memberTimeoutSeconds,
    int bakeMinutes,
    boolean skipKubernetesGate) {

  public static final List<String> SIZES = List.of("small", "medium", "large");

  /** A day: a bake longer than that is a pause, which the fleet has for itself. */
  public static final int MAX_BAKE_MINUTES = 1440;

  public FleetUpgradeRequest {
    selector = selector == null ? "" : selector;
    waveLabel = waveLabel == null ? "" : waveLabel;
    waveOrder = waveOrder == null ? List.of() : List.copyOf(waveOrder);
  }

  /** One canary, then waves by the {@code size} label (small, medium, large), one at a time. */
  public static FleetUpgradeRequest of(String fleet, String selector, String targetVersion) {
    return new FleetUpgradeRequest(
        fleet, selector, targetVersion, 1, "size", SIZES, 1, 1, false, 0, 0, false);
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
        memberTimeoutSeconds,
        bakeMinutes,
        skipKubernetesGate);
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
        memberTimeoutSeconds,
        bakeMinutes,
        skipKubernetesGate);
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
        memberTimeoutSeconds,
        bakeMinutes,
        skipKubernetesGate);
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
        memberTimeoutSeconds,
        bakeMinutes,
        skipKubernetesGate);
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
        memberTimeoutSeconds,
        bakeMinutes,
        skipKubernetesGate);
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
        seconds,
        bakeMinutes,
        skipKubernetesGate);
  }

  /** Each wave's upgraded clusters run this long before they are judged. */
  public FleetUpgradeRequest withBakeMinutes(int minutes) {
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
        memberTimeoutSeconds,
        minutes,
        skipKubernetesGate);
  }

  /** Waves judged by the etcd postflight alone. */
  public FleetUpgradeRequest withoutKubernetesGate() {
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
        memberTimeoutSeconds,
        bakeMinutes,
        true);
  }

  /** What is wrong with the request, before anything is read; empty when nothing. */
  public List<String> problems() {
    List<String> problems = new java.util.ArrayList<>();
    if (fleet == null || !fleet.matches("[a-z0-9][a-z0-9-]{0,62}"))
      problems.add("fleet '" + fleet + "' is not a name of lower-case letters, digits and -");
    if (!EtcdVersion.isVersion(targetVersion))
      problems.add("targetVersion '" + targetVersion + "' is not major.minor.patch");
    if (concurrency < 1) problems.add("concurrency " + concurrency + " is under 1");
    if (failureBudget < 1) problems.add("failureBudget " + failureBudget + " is under 1");
    if (canaries < 0) problems.add("canaries " + canaries + " is negative");
    if (memberTimeoutSeconds < 0) problems.add("memberTimeoutSeconds is negative");
    if (bakeMinutes < 0 || bakeMinutes > MAX_BAKE_MINUTES)
      problems.add("bakeMinutes " + bakeMinutes + " is not between 0 and " + MAX_BAKE_MINUTES);
    return problems;
  }

  RunbookOptions clusterOptions() {
    return RunbookOptions.defaults().withMemberTimeoutSeconds(memberTimeoutSeconds);
  }
}
