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
            "replacement.name must be 1-63 letters, digits, '.', '_' or '-', got '%s'"
                .formatted(r.name()));
      }
      if (!blank(r.host()) && (blank(r.peerUrl()) || blank(r.clientUrl()))) {
        problems.add("replacement on host " + r.host() + " needs its own peerUrl and clientUrl");
      }
      for (String url : new String[] {r.peerUrl(), r.clientUrl()}) {
        if (!blank(url) && !URL.matcher(url).matches()) {
          problems.add(
              "replacement URL '%s' must look like https://10.0.0.4:2380 (scheme, host and port, nothing else)"
                  .formatted(url));
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
    ReplacementQuorum.problem(state, etcdMembers, failedInEtcd).ifPresent(problems::add);

    MemberStatus failedStatus = state.member(failed.name()).orElse(null);
    if (failedStatus != null && failedStatus.healthy() && !force) {
      problems.add(
          ("member %s is healthy (etcd %s); replacing it would take a working member out of the"
                  + " cluster. If it must go anyway (a failing disk, say), start the runbook with"
                  + " force: true")
              .formatted(failed.name(), failedStatus.serverVersion()));
    }
    boolean samePeerUrl = replacement.peerUrl().equals(failed.peerUrl());
    for (EtcdMember m : etcdMembers) {
      boolean isFailed = failedInEtcd.map(f -> f.id() == m.id()).orElse(false);
      boolean isOurs = !samePeerUrl && m.hasPeerUrl(replacement.peerUrl());
      if (!isFailed && !isOurs) problems.addAll(otherMemberProblems(state, m, replacement));
    }
    for (MemberStatus s : state.members()) {
      if (!s.name().equals(failed.name()) && s.name().equals(replacement.name())) {
        problems.add(
            "the replacement's name '%s' is already an inventory member's; choose another"
                .formatted(replacement.name()));
      }
    }
    return problems;
  }

  /** What an etcd member other than the failed one (and the new one) must not be. */
  private static List<String> otherMemberProblems(
      ClusterState state, EtcdMember m, MemberPlacement replacement) {
    List<String> problems = new ArrayList<>();
    if (state.members().stream().noneMatch(s -> s.id() == m.id())) {
      problems.add(
          ("etcd has member %s id %s %s that the inventory does not know: bring the inventory up"
                  + " to date (or remove that member) first")
              .formatted(
                  m.name().isEmpty() ? "(never started)" : "'" + m.name() + "'",
                  m.hexId(),
                  m.peerUrls()));
    }
    if (m.learner()) {
      problems.add(
          "member '%s' id %s is a learner: promote or remove it first (etcd takes one learner at a time)"
              .formatted(m.name(), m.hexId()));
    }
    if (m.name().equals(replacement.name())) {
      problems.add(
          "the replacement's name '%s' is already the name of etcd member id %s"
              .formatted(replacement.name(), m.hexId()));
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

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
