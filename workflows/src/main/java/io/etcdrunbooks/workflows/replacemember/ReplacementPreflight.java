package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The checks a member replacement must pass before anything is touched. Pure: every answer comes
 * from the input, the discovered state (inventory members with their health) and etcd's own member
 * list.
 */
public final class ReplacementPreflight {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");
  private static final Pattern URL = Pattern.compile("https?://[^/\\s,]+:\\d{1,5}");

  private ReplacementPreflight() {}

  /** What is wrong with the request itself, before any cluster is looked at. */
  public static List<String> inputProblems(ReplaceMemberRequest request) {
    List<String> problems = new ArrayList<>();
    if (blank(request.cluster())) problems.add("cluster is required");
    if (blank(request.failedMember()))
      problems.add("failedMember is required: the inventory name of the member to replace");
    MemberPlacement r = request.replacement();
    if (r != null) {
      if (blank(r.name()) || !NAME.matcher(r.name()).matches()) {
        problems.add(
            "replacement.name must be 1-63 letters, digits, '.', '_' or '-', got '"
                + r.name()
                + "'");
      }
      if (!blank(r.host()) && (blank(r.peerUrl()) || blank(r.clientUrl()))) {
        problems.add("replacement on host " + r.host() + " needs its own peerUrl and clientUrl");
      }
      for (String url : new String[] {r.peerUrl(), r.clientUrl()}) {
        if (!blank(url) && !URL.matcher(url).matches()) {
          problems.add(
              "replacement URL '"
                  + url
                  + "' must look like https://10.0.0.4:2380 (scheme, host and port, nothing else)");
        }
      }
      for (String path : new String[] {r.dataDir(), r.installDir(), r.serviceDir()}) {
        if (!blank(path) && !path.startsWith("/"))
          problems.add("replacement path '" + path + "' must be absolute");
      }
    }
    if (request.memberTimeoutSeconds() < 0 || request.apiServerTimeoutSeconds() < 0)
      problems.add("timeouts must not be negative");
    return problems;
  }

  /**
   * A new name for a member replaced on its own host: the failed name with {@code -r1}, or the next
   * {@code -rN} when the failed member was itself a replacement or the name is taken.
   */
  public static String nameOnSameHost(String failed, Set<String> taken) {
    String base = failed.replaceFirst("-r\\d+$", "");
    for (int n = 1; ; n++) {
      String candidate = base + "-r" + n;
      if (!taken.contains(candidate) && !candidate.equals(failed)) return candidate;
    }
  }

  /**
   * Problems that forbid the replacement now; empty when it may go on.
   *
   * @param failed the failed member as the inventory has it
   * @param replacement the complete placement of the new member
   */
  public static List<String> clusterProblems(
      ClusterState state,
      List<EtcdMember> etcdMembers,
      MemberPlacement failed,
      MemberPlacement replacement,
      boolean force) {
    List<String> problems = new ArrayList<>();
    Optional<EtcdMember> failedInEtcd =
        etcdMembers.stream().filter(m -> m.hasPeerUrl(failed.peerUrl())).findFirst();
    quorumProblem(state, etcdMembers, failedInEtcd).ifPresent(problems::add);

    MemberStatus failedStatus = state.member(failed.name()).orElse(null);
    if (failedStatus != null && failedStatus.healthy() && !force) {
      problems.add(
          "member "
              + failed.name()
              + " is healthy (etcd "
              + failedStatus.serverVersion()
              + "); replacing it would take a"
              + " working member out of the cluster. If it must go anyway (a failing disk, say), start the runbook with force: true");
    }
    boolean samePeerUrl = replacement.peerUrl().equals(failed.peerUrl());
    for (EtcdMember m : etcdMembers) {
      boolean isFailed = failedInEtcd.map(f -> f.id() == m.id()).orElse(false);
      boolean isOurs = !samePeerUrl && m.hasPeerUrl(replacement.peerUrl());
      if (isFailed || isOurs) continue;
      if (state.members().stream().noneMatch(s -> s.id() == m.id())) {
        problems.add(
            "etcd has member "
                + (m.name().isEmpty() ? "(never started)" : "'" + m.name() + "'")
                + " id "
                + m.hexId()
                + " "
                + m.peerUrls()
                + " that the inventory does not know: bring the inventory up to date (or remove that member) first");
      }
      if (m.learner()) {
        problems.add(
            "member '"
                + m.name()
                + "' id "
                + m.hexId()
                + " is a learner: promote or remove it first (etcd takes one learner"
                + " at a time)");
      }
      if (m.name().equals(replacement.name())) {
        problems.add(
            "the replacement's name '"
                + replacement.name()
                + "' is already the name of etcd member id "
                + m.hexId());
      }
    }
    for (MemberStatus s : state.members()) {
      if (s.name().equals(failed.name())) continue;
      if (s.name().equals(replacement.name())) {
        problems.add(
            "the replacement's name '"
                + replacement.name()
                + "' is already an inventory member's; choose another");
      }
    }
    return problems;
  }

  /**
   * The requested placement with what it leaves out taken from the failed member (same host:
   * everything).
   */
  public static MemberPlacement complete(
      MemberPlacement failed, MemberPlacement requested, String name) {
    MemberPlacement r =
        requested == null
            ? new MemberPlacement(name, null, 0, null, null, null, null, null)
            : requested;
    boolean sameHost = blank(r.host());
    return new MemberPlacement(
        name,
        sameHost ? failed.host() : r.host(),
        sameHost ? failed.sshPort() : r.sshPort(),
        orElse(r.peerUrl(), failed.peerUrl()),
        orElse(r.clientUrl(), failed.clientUrl()),
        orElse(r.dataDir(), failed.dataDir()),
        orElse(r.installDir(), failed.installDir()),
        orElse(r.serviceDir(), failed.serviceDir()));
  }

  private static String orElse(String value, String fallback) {
    return blank(value) ? fallback : value;
  }

  /** URLs of the replacement that other inventory members already use. */
  public static List<String> urlClashes(
      List<MemberPlacement> inventoryMembers, MemberPlacement failed, MemberPlacement replacement) {
    List<String> problems = new ArrayList<>();
    for (MemberPlacement m : inventoryMembers) {
      if (m.name().equals(failed.name())) continue;
      for (String url : List.of(replacement.peerUrl(), replacement.clientUrl())) {
        if (url.equals(m.peerUrl()) || url.equals(m.clientUrl())) {
          problems.add(
              "the replacement's URL " + url + " is already used by member '" + m.name() + "'");
        }
      }
    }
    return problems;
  }

  /** Whether the voting members other than the failed one hold quorum of the current membership. */
  public static Optional<String> quorumProblem(
      ClusterState state, List<EtcdMember> etcdMembers, MemberPlacement failed) {
    return quorumProblem(
        state,
        etcdMembers,
        etcdMembers.stream().filter(m -> m.hasPeerUrl(failed.peerUrl())).findFirst());
  }

  /**
   * Whether enough voting members other than the failed one are up to hold quorum, so that a
   * missing leader is an election under way (a member that just died may have led) rather than lost
   * quorum.
   */
  public static boolean electionMayHelp(
      ClusterState state, List<EtcdMember> etcdMembers, MemberPlacement failed) {
    List<EtcdMember> voters = etcdMembers.stream().filter(m -> !m.learner()).toList();
    Set<Long> reachable =
        state.members().stream()
            .filter(MemberStatus::reachable)
            .map(MemberStatus::id)
            .collect(Collectors.toSet());
    long up =
        voters.stream()
            .filter(v -> !v.hasPeerUrl(failed.peerUrl()) && reachable.contains(v.id()))
            .count();
    return !voters.isEmpty() && up >= voters.size() / 2 + 1;
  }

  private static Optional<String> quorumProblem(
      ClusterState state, List<EtcdMember> etcdMembers, Optional<EtcdMember> failed) {
    List<EtcdMember> voters = etcdMembers.stream().filter(m -> !m.learner()).toList();
    if (voters.isEmpty()) {
      return Optional.of(
          "no member answers the member list: the cluster has lost quorum or every member is down. A member"
              + " replacement needs a working cluster; the way forward is the RestoreCluster runbook (disaster recovery from the"
              + " latest verified backup)");
    }
    Set<Long> healthyIds =
        state.members().stream()
            .filter(MemberStatus::healthy)
            .map(MemberStatus::id)
            .collect(Collectors.toSet());
    List<String> healthyOthers =
        voters.stream()
            .filter(
                v -> failed.map(f -> f.id() != v.id()).orElse(true) && healthyIds.contains(v.id()))
            .map(v -> v.name().isEmpty() ? v.hexId() : v.name())
            .toList();
    int quorum = voters.size() / 2 + 1;
    if (healthyOthers.size() >= quorum && !state.leaderName().isEmpty()) return Optional.empty();
    List<String> down =
        state.members().stream()
            .filter(m -> !m.healthy())
            .map(
                m ->
                    m.name()
                        + (m.errors().isEmpty() ? "" : " (" + String.join("; ", m.errors()) + ")"))
            .toList();
    return Optional.of(
        "without the failed member only "
            + healthyOthers.size()
            + " of "
            + voters.size()
            + " voting members are"
            + " healthy "
            + healthyOthers
            + ", below quorum "
            + quorum
            + " (down or unhealthy: "
            + down
            + "). Removing or adding"
            + " members needs quorum, so nothing was touched; the way forward is the RestoreCluster runbook (disaster recovery"
            + " from the latest verified backup), or bring enough of them back first");
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
