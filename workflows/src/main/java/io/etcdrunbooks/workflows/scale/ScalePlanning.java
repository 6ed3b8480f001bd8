package io.etcdrunbooks.workflows.scale;

import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.ClusterChecks;
import io.etcdrunbooks.workflows.replacemember.ReplacementPreflight;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What a scaling does and whether it may: the members to add and to remove, and every reason not to
 * go on. Pure: every answer comes from the request, the inventory, the discovered state and etcd's
 * own member list.
 */
public final class ScalePlanning {

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,62}");
  private static final Pattern URL = Pattern.compile("https?://[^/\\s,]+:\\d{1,5}");

  private ScalePlanning() {}

  /** The members to add and to remove, in the order the runbook takes them. */
  public record Plan(List<MemberPlacement> add, List<MemberPlacement> remove) {
    public boolean changes() {
      return !add.isEmpty() || !remove.isEmpty();
    }
  }

  /** What is wrong with the request itself, before any cluster is looked at. */
  public static List<String> inputProblems(ScaleClusterRequest request) {
    List<String> problems = new ArrayList<>();
    if (blank(request.cluster())) problems.add("cluster is required");
    int target = request.targetSize();
    if (target < 3 || target % 2 == 0) {
      problems.add(
          ("targetSize must be odd and at least 3, got %d: an even number of members tolerates no"
                  + " more failures than the odd number below it, and fewer than 3 tolerate none")
              .formatted(target));
    }
    Set<String> names = new HashSet<>();
    Set<String> urls = new HashSet<>();
    for (MemberPlacement m : request.newMembers()) {
      String who = m == null ? "a new member" : "new member '" + m.name() + "'";
      if (m == null) {
        problems.add("newMembers holds an empty entry");
        continue;
      }
      if (blank(m.name()) || !NAME.matcher(m.name()).matches()) {
        problems.add(
            "newMembers: name must be 1-63 letters, digits, '.', '_' or '-', got '%s'"
                .formatted(m.name()));
      } else if (!names.add(m.name())) {
        problems.add("newMembers names '" + m.name() + "' twice");
      }
      if (blank(m.host())) problems.add(who + " needs a host");
      for (String url : new String[] {m.peerUrl(), m.clientUrl()}) {
        if (blank(url) || !URL.matcher(url).matches()) {
          problems.add(
              ("%s needs a peerUrl and a clientUrl like https://10.0.0.4:2380 (scheme, host and"
                      + " port, nothing else), got '%s'")
                  .formatted(who, url));
        } else if (!urls.add(url)) {
          problems.add(who + ": URL " + url + " is given twice");
        }
      }
      for (String path : new String[] {m.dataDir(), m.installDir(), m.serviceDir()}) {
        if (!blank(path) && !path.startsWith("/"))
          problems.add(who + ": path '" + path + "' must be absolute");
      }
    }
    if (!request.newMembers().isEmpty() && !request.removeMembers().isEmpty()) {
      problems.add("give newMembers to grow or removeMembers to shrink, not both");
    }
    if (request.memberTimeoutSeconds() < 0 || request.apiServerTimeoutSeconds() < 0)
      problems.add("timeouts must not be negative");
    return problems;
  }

  /**
   * The members to add (new members not yet in the inventory, their empty paths taken from the
   * first inventory member) and to remove (those named, or chosen: members that do not answer
   * first, then followers from the end of the inventory, the leader last).
   */
  public static Plan plan(
      ScaleClusterRequest request, List<MemberPlacement> inventory, ClusterState state) {
    int current = inventory.size();
    int target = request.targetSize();
    List<MemberPlacement> add = new ArrayList<>();
    List<MemberPlacement> remove = new ArrayList<>();
    if (target > current && !inventory.isEmpty()) {
      MemberPlacement template = inventory.get(0);
      for (MemberPlacement m : request.newMembers()) {
        if (find(inventory, m.name()).isEmpty())
          add.add(ReplacementPreflight.complete(template, m, m.name()));
      }
    } else if (target < current) {
      if (!request.removeMembers().isEmpty()) {
        request.removeMembers().stream()
            .map(name -> find(inventory, name))
            .flatMap(Optional::stream)
            .forEach(remove::add);
      } else {
        remove.addAll(chosenForRemoval(inventory, state, current - target));
      }
    }
    return new Plan(add, remove);
  }

  private static List<MemberPlacement> chosenForRemoval(
      List<MemberPlacement> inventory, ClusterState state, int count) {
    List<MemberPlacement> byPreference = new ArrayList<>(inventory);
    java.util.Collections.reverse(byPreference);
    byPreference.sort(
        Comparator.comparingInt(
            (MemberPlacement m) -> {
              Optional<MemberStatus> s = state.member(m.name());
              if (s.isEmpty() || !s.get().healthy()) return 0;
              return m.name().equals(state.leaderName()) ? 2 : 1;
            }));
    return byPreference.subList(0, Math.min(count, byPreference.size()));
  }

  /** Reasons not to scale as planned; empty when it may go on. */
  public static List<String> problems(
      ScaleClusterRequest request,
      List<MemberPlacement> inventory,
      ClusterState state,
      List<EtcdMember> etcdMembers,
      Plan plan) {
    List<String> problems = new ArrayList<>();
    int current = inventory.size();
    int target = request.targetSize();
    if (target > current) {
      problems.addAll(growthProblems(current, target, plan));
      problems.addAll(clashes(inventory, etcdMembers, plan.add()));
    } else if (target < current) {
      if (!request.newMembers().isEmpty())
        problems.add(
            "shrinking from %d to %d members takes no newMembers".formatted(current, target));
      if (!request.removeMembers().isEmpty()) {
        List<String> unknown =
            request.removeMembers().stream()
                .filter(n -> find(inventory, n).isEmpty())
                .filter(n -> etcdMembers.stream().anyMatch(e -> e.name().equals(n)))
                .toList();
        if (!unknown.isEmpty())
          problems.add(
              "removeMembers names %s, etcd members the inventory does not know: bring the inventory up to date first"
                  .formatted(unknown));
        if (plan.remove().size() != current - target) {
          problems.add(
              ("shrinking from %d to %d members removes %d member(s); removeMembers names %d the"
                      + " inventory has %s")
                  .formatted(
                      current,
                      target,
                      current - target,
                      plan.remove().size(),
                      plan.remove().stream().map(MemberPlacement::name).toList()));
        }
      }
    }
    if (!plan.changes()) return problems;
    problems.addAll(membershipProblems(inventory, state, etcdMembers));
    problems.addAll(healthProblems(state, plan));
    List<String> versions =
        state.members().stream()
            .map(MemberStatus::serverVersion)
            .filter(v -> v != null && !v.isEmpty())
            .distinct()
            .toList();
    if (versions.size() > 1) {
      problems.add(
          ("the members run different etcd versions %s: finish the upgrade (or roll it back)"
                  + " before changing the membership")
              .formatted(versions));
    }
    return problems;
  }

  /**
   * Every member that stays must be healthy; a member being removed may be down, as long as the
   * members left hold quorum at every step.
   */
  private static List<String> healthProblems(ClusterState state, Plan plan) {
    Set<String> leaving = new HashSet<>();
    plan.remove().forEach(m -> leaving.add(m.name()));
    List<MemberStatus> staying =
        state.members().stream().filter(m -> !leaving.contains(m.name())).toList();
    ClusterState withoutLeaving =
        new ClusterState(
            state.cluster(),
            staying,
            leaving.contains(state.leaderName()) ? "" : state.leaderName(),
            state.clusterVersion(),
            state.alarms(),
            state.revision(),
            state.alarmsUnread(),
            state.authEnabled(),
            state.v2(),
            state.certificates());
    List<String> problems =
        new ArrayList<>(
            ClusterChecks.memberProblems(withoutLeaving, "changing the membership").stream()
                .filter(p -> !p.startsWith("no member sees a leader"))
                .toList());
    if (state.leaderName().isEmpty()) {
      problems.add(
          "no member sees a leader: the cluster has no quorum, and a membership change needs"
              + " it. The way forward is RecoverQuorum");
    }
    return problems;
  }

  /** etcd's members must be the inventory's, none a learner. */
  private static List<String> membershipProblems(
      List<MemberPlacement> inventory, ClusterState state, List<EtcdMember> etcdMembers) {
    List<String> problems = new ArrayList<>();
    for (EtcdMember m : etcdMembers) {
      boolean known = inventory.stream().anyMatch(p -> m.hasPeerUrl(p.peerUrl()));
      if (!known) {
        problems.add(
            ("etcd has member %s id %s %s that the inventory does not know: bring the inventory up"
                    + " to date (or remove that member) first")
                .formatted(
                    m.name().isEmpty() ? "(never started)" : "'" + m.name() + "'",
                    m.hexId(),
                    m.peerUrls()));
      } else if (m.learner()) {
        problems.add(
            "member '%s' id %s is a learner: promote or remove it first"
                .formatted(m.name(), m.hexId()));
      }
    }
    for (MemberPlacement p : inventory) {
      if (!etcdMembers.isEmpty() && etcdMembers.stream().noneMatch(m -> m.hasPeerUrl(p.peerUrl())))
        problems.add(
            ("inventory member %s (%s) is not an etcd member: remove it from the inventory or"
                    + " add it back (ReplaceMember) first")
                .formatted(p.name(), p.peerUrl()));
    }
    return problems;
  }

  /** New members whose name or URLs an existing member already has. */
  /**
   * What the request and the inventory alone show to be wrong, before etcd is asked: the number of
   * new members for the target size, new members on URLs inventory members use, newMembers given to
   * shrink. The API refuses these before anything starts; the preflight checks them again with
   * etcd's own member list.
   */
  public static List<String> inventoryProblems(
      ScaleClusterRequest request, List<MemberPlacement> inventory) {
    int current = inventory.size();
    int target = request.targetSize();
    if (target > current) {
      Plan plan = plan(request, inventory, null); // growing does not look at the cluster's state
      List<String> problems = new ArrayList<>(growthProblems(current, target, plan));
      problems.addAll(clashes(inventory, List.of(), plan.add()));
      return problems;
    }
    if (target < current && !request.newMembers().isEmpty())
      return List.of(
          "shrinking from %d to %d members takes no newMembers".formatted(current, target));
    return List.of();
  }

  private static List<String> growthProblems(int current, int target, Plan plan) {
    int missing = target - current - plan.add().size();
    if (missing > 0) {
      return List.of(
          ("growing from %d to %d members needs %d new member(s) in newMembers, %d given (not"
                  + " counting members the inventory has already)")
              .formatted(current, target, target - current, plan.add().size()));
    } else if (missing < 0) {
      return List.of(
          "growing from %d to %d members needs %d new member(s), %d given: give exactly those to add"
              .formatted(current, target, target - current, plan.add().size()));
    }
    return List.of();
  }

  private static List<String> clashes(
      List<MemberPlacement> inventory, List<EtcdMember> etcdMembers, List<MemberPlacement> add) {
    List<String> problems = new ArrayList<>();
    for (MemberPlacement n : add) {
      for (MemberPlacement m : inventory) {
        for (String url : List.of(n.peerUrl(), n.clientUrl())) {
          if (url.equals(m.peerUrl()) || url.equals(m.clientUrl()))
            problems.add(
                "new member %s: URL %s is already used by member '%s'"
                    .formatted(n.name(), url, m.name()));
        }
      }
      for (EtcdMember e : etcdMembers) {
        if (e.name().equals(n.name()) && !e.hasPeerUrl(n.peerUrl()))
          problems.add(
              "new member %s: the name is already etcd member id %s's"
                  .formatted(n.name(), e.hexId()));
      }
    }
    return problems;
  }

  /**
   * Why removing {@code member} now would cost quorum, or empty when the voting members left hold
   * it.
   */
  public static Optional<String> whyUnsafeToRemove(ClusterState state, String member) {
    List<MemberStatus> voters = state.members().stream().filter(m -> !m.learner()).toList();
    int after = (int) voters.stream().filter(m -> !m.name().equals(member)).count();
    int quorumAfter = after / 2 + 1;
    List<String> healthyLeft =
        voters.stream()
            .filter(m -> !m.name().equals(member) && m.healthy())
            .map(MemberStatus::name)
            .toList();
    if (!state.leaderName().isEmpty() && healthyLeft.size() >= quorumAfter) return Optional.empty();
    return Optional.of(
        ("removing %s would leave %d healthy voting member(s) %s of %d, below quorum %d%s: bring"
                + " the others back first")
            .formatted(
                member,
                healthyLeft.size(),
                healthyLeft,
                after,
                quorumAfter,
                state.leaderName().isEmpty() ? " (and no member sees a leader now)" : ""));
  }

  private static Optional<MemberPlacement> find(List<MemberPlacement> inventory, String name) {
    return inventory.stream().filter(m -> m.name().equals(name)).findFirst();
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
