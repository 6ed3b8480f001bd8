package io.etcdrunbooks.workflows.recover;

import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Input of the RecoverQuorum runbook, one JSON object so the Temporal Web UI can start it: {@code
 * {"cluster":"prod-1","acknowledgeDataLoss":true}}. It always waits for an approval before it
 * touches anything.
 *
 * @param acknowledgeDataLoss required: writes that reached only the lost members are lost
 * @param survivor the member to rebuild the cluster from; empty: the answering member with the
 *     highest applied raft index
 * @param replacements where a lost member is rebuilt when its own host is gone (member name to
 *     placement, as ReplaceMember's replacement); a lost member not named is rebuilt on its own
 *     host with a fresh data dir and a new name (m2-r1)
 * @param confirmLossSeconds the loss must hold this long (no leader, a majority unreachable),
 *     looked at every 5 s, before the runbook plans (0: 60 s)
 * @param skipControlPlaneHosts control-plane hosts whose machines are gone with the lost members:
 *     their kube-apiservers are down with them, so they are neither stopped nor brought back (their
 *     manifests are fixed when they return); any other unreachable control-plane host refuses
 * @param destroyed lost members whose hosts cannot be logged in to, attested one by one as
 *     destroyed (or never to come back with their data): they cannot be fenced on their hosts, so
 *     each is tombstoned in the inventory, and discovery stops it should it answer again; a lost
 *     member whose host cannot be logged in to and that is not named here refuses the recovery
 * @param memberTimeoutSeconds how long the survivor and each rebuilt member may take to be ready
 *     (0: 300 s)
 * @param apiServerTimeoutSeconds how long each kube-apiserver may take to stop or be healthy (0:
 *     300 s)
 * @param acknowledgeRevisionsBackward recover even when no tool that raises the revision can be had
 *     (etcdutl 3.5.10 or later, the survivor's own or from the binary source): the survivor then
 *     keeps its revision, lower than the lost members had, and every watcher must be restarted to
 *     relist
 */
public record RecoverQuorumRequest(
    String cluster,
    boolean acknowledgeDataLoss,
    String survivor,
    Map<String, MemberPlacement> replacements,
    int confirmLossSeconds,
    List<String> skipControlPlaneHosts,
    List<String> destroyed,
    boolean dryRun,
    int memberTimeoutSeconds,
    int apiServerTimeoutSeconds,
    boolean acknowledgeRevisionsBackward) {

  public static final int DEFAULT_CONFIRM_LOSS_SECONDS = 60;
  public static final int DEFAULT_MEMBER_TIMEOUT_SECONDS = 300;
  public static final int DEFAULT_APISERVER_TIMEOUT_SECONDS = 300;

  public RecoverQuorumRequest {
    // in the order given (Map.copyOf's order changes from one JVM to the next)
    replacements =
        replacements == null
            ? Map.of()
            : Collections.unmodifiableMap(new LinkedHashMap<>(replacements));
    survivor = survivor == null ? "" : survivor;
    skipControlPlaneHosts =
        skipControlPlaneHosts == null ? List.of() : List.copyOf(skipControlPlaneHosts);
    destroyed = destroyed == null ? List.of() : List.copyOf(destroyed);
  }

  /** What is wrong with the request itself, before any cluster is looked at. */
  public List<String> problems() {
    List<String> problems = new ArrayList<>();
    if (cluster == null || cluster.isBlank()) problems.add("cluster is required");
    if (!acknowledgeDataLoss)
      problems.add(
          "acknowledgeDataLoss must be true: the cluster is rebuilt from one member (or a backup),"
              + " and writes that reached only the lost members are lost");
    for (Map.Entry<String, MemberPlacement> r : replacements.entrySet()) {
      MemberPlacement p = r.getValue();
      if (p == null
          || blank(p.name())
          || blank(p.host())
          || blank(p.peerUrl())
          || blank(p.clientUrl()))
        problems.add(
            "replacements." + r.getKey() + " needs a name, a host, a peerUrl and a clientUrl");
    }
    if (confirmLossSeconds < 0 || memberTimeoutSeconds < 0 || apiServerTimeoutSeconds < 0)
      problems.add("times must not be negative");
    return problems;
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  /**
   * What the inventory's members show to be wrong with the request: a survivor or a replaced member
   * the inventory does not have. The API refuses these before anything starts; the runbook checks
   * them again when it reads the inventory.
   */
  public List<String> inventoryProblems(List<MemberPlacement> inventory) {
    List<String> problems = new ArrayList<>();
    List<String> names = inventory.stream().map(MemberPlacement::name).toList();
    for (String gone : destroyed) {
      if (!names.contains(gone))
        problems.add(
            "destroyed names '%s', which is not a member of the inventory %s"
                .formatted(gone, names));
    }
    for (String lost : replacements.keySet()) {
      if (!names.contains(lost))
        problems.add(
            "replacements names '%s', which is not a member of the inventory %s"
                .formatted(lost, names));
    }
    if (!survivor.isEmpty() && !names.contains(survivor))
      problems.add("survivor '%s' is not a member of the inventory %s".formatted(survivor, names));
    return problems;
  }

  /** A recovery from the best survivor, lost members rebuilt on their own hosts. */
  public static RecoverQuorumRequest of(String cluster, RunbookOptions options) {
    return new RecoverQuorumRequest(
        cluster,
        false,
        "",
        Map.of(),
        0,
        List.of(),
        List.of(),
        options.dryRun(),
        options.memberTimeoutSeconds(),
        options.apiServerTimeoutSeconds(),
        false);
  }

  public RecoverQuorumRequest acknowledgingDataLoss() {
    return new RecoverQuorumRequest(
        cluster,
        true,
        survivor,
        replacements,
        confirmLossSeconds,
        skipControlPlaneHosts,
        destroyed,
        dryRun,
        memberTimeoutSeconds,
        apiServerTimeoutSeconds,
        acknowledgeRevisionsBackward);
  }

  public RecoverQuorumRequest confirmingLossFor(int seconds) {
    return new RecoverQuorumRequest(
        cluster,
        acknowledgeDataLoss,
        survivor,
        replacements,
        seconds,
        skipControlPlaneHosts,
        destroyed,
        dryRun,
        memberTimeoutSeconds,
        apiServerTimeoutSeconds,
        acknowledgeRevisionsBackward);
  }

  public RecoverQuorumRequest from(String member) {
    return new RecoverQuorumRequest(
        cluster,
        acknowledgeDataLoss,
        member,
        replacements,
        confirmLossSeconds,
        skipControlPlaneHosts,
        destroyed,
        dryRun,
        memberTimeoutSeconds,
        apiServerTimeoutSeconds,
        acknowledgeRevisionsBackward);
  }

  public RecoverQuorumRequest rebuilding(Map<String, MemberPlacement> placements) {
    return new RecoverQuorumRequest(
        cluster,
        acknowledgeDataLoss,
        survivor,
        placements,
        confirmLossSeconds,
        skipControlPlaneHosts,
        destroyed,
        dryRun,
        memberTimeoutSeconds,
        apiServerTimeoutSeconds,
        acknowledgeRevisionsBackward);
  }

  /** This recovery leaving out these control-plane hosts (their machines are gone). */
  public RecoverQuorumRequest skippingControlPlaneHosts(List<String> hosts) {
    return new RecoverQuorumRequest(
        cluster,
        acknowledgeDataLoss,
        survivor,
        replacements,
        confirmLossSeconds,
        hosts,
        destroyed,
        dryRun,
        memberTimeoutSeconds,
        apiServerTimeoutSeconds,
        acknowledgeRevisionsBackward);
  }

  /** This recovery attesting that these lost members' machines are destroyed. */
  public RecoverQuorumRequest attestingDestroyed(List<String> members) {
    return new RecoverQuorumRequest(
        cluster,
        acknowledgeDataLoss,
        survivor,
        replacements,
        confirmLossSeconds,
        skipControlPlaneHosts,
        members,
        dryRun,
        memberTimeoutSeconds,
        apiServerTimeoutSeconds,
        acknowledgeRevisionsBackward);
  }

  /**
   * This recovery going on with the survivor's revision when no tool can raise it (see {@code
   * acknowledgeRevisionsBackward}).
   */
  public RecoverQuorumRequest withRevisionsBackwardAcknowledged(boolean acknowledged) {
    return new RecoverQuorumRequest(
        cluster,
        acknowledgeDataLoss,
        survivor,
        replacements,
        confirmLossSeconds,
        skipControlPlaneHosts,
        destroyed,
        dryRun,
        memberTimeoutSeconds,
        apiServerTimeoutSeconds,
        acknowledged);
  }

  public int effectiveConfirmLossSeconds() {
    return confirmLossSeconds > 0 ? confirmLossSeconds : DEFAULT_CONFIRM_LOSS_SECONDS;
  }

  public int effectiveMemberTimeoutSeconds() {
    return memberTimeoutSeconds > 0 ? memberTimeoutSeconds : DEFAULT_MEMBER_TIMEOUT_SECONDS;
  }

  public int effectiveApiServerTimeoutSeconds() {
    return apiServerTimeoutSeconds > 0
        ? apiServerTimeoutSeconds
        : DEFAULT_APISERVER_TIMEOUT_SECONDS;
  }
}
