package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.MemberStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What must hold before a rung touches its first member, read from what the members report (each
 * one's status and etcd's own member list), not from the request: the plan was made from the lowest
 * version running at discovery, and a member can have been put back, added or removed by hand
 * since. Pure: every answer comes from the rung's discovery.
 */
final class RungRules {

  private RungRules() {}

  /** Every reason not to start the rung; empty when there is none. */
  static List<String> problems(LadderStep step, ClusterState state) {
    List<String> problems = new ArrayList<>(membership(state));
    problems.addAll(reportedVersions(step, state));
    return problems;
  }

  /**
   * Members etcd lists that the inventory does not name. Sources: a learner left over, never
   * promoted: etcd 3.5.1-3.5.19 did not persist a promotion (etcd issue #19557, fixed in 3.5.20;
   * etcd's 3.6 upgrade guide asked for 3.5.20 first because of the "too many learner members"
   * error), and the state was carried across upgrades until 3.5.24 (#20793); a removed member that
   * reappears ("zombie members", fixed in 3.5.26 by etcd PR #20995; CHANGELOG-3.5). The floor
   * before 3.6 has since moved to 3.5.32 (VersionLadder), past every one of these fixes, but a
   * member list already damaged stays so.
   */
  static List<String> membership(ClusterState state) {
    List<String> problems = new ArrayList<>();
    for (EtcdMember m : state.membersBeyondInventory()) {
      String who =
          "%s (id %s, peer URLs %s)"
              .formatted(
                  m.name().isEmpty() ? "a member never started" : m.name(),
                  m.hexId(),
                  m.peerUrls());
      if (m.learner()) {
        problems.add(
            ("etcd lists learner %s, which cluster '%s''s inventory does not name: a learner left"
                    + " over, never promoted (etcd 3.5.1-3.5.19 did not persist a promotion, etcd"
                    + " #19557, fixed in 3.5.20; until 3.5.24 such learners were carried across"
                    + " upgrades, #20793), and etcd 3.6 refuses to start with more learners than"
                    + " --max-learners. Promote it (`etcdctl member promote %s`, once it runs and"
                    + " has caught up) and add it to the inventory, or remove it (`etcdctl member"
                    + " remove %s`), then start the upgrade again")
                .formatted(who, state.cluster(), m.hexId(), m.hexId()));
      } else {
        problems.add(
            ("etcd lists member %s, which cluster '%s''s inventory does not name: a member removed"
                    + " earlier that reappeared (etcd's \"zombie members\", fixed in 3.5.26, etcd PR"
                    + " #20995) or one added outside the runbooks. If no etcd of it runs, remove it"
                    + " (`etcdctl member remove %s`); if it is a live member, add it to the"
                    + " inventory; then start the upgrade again")
                .formatted(who, state.cluster(), m.hexId()));
      }
    }
    return problems;
  }

  /**
   * A rung into a new minor needs every member on the minimum etcd's guide asks for (3.6: 3.5.32,
   * https://etcd.io/docs/v3.6/upgrades/upgrade_3_6/; 3.7: 3.6.11,
   * https://etcd.io/docs/v3.7/upgrades/upgrade_3_7/) and on the minor it leaves: etcd upgrades one
   * minor at a time.
   */
  static List<String> reportedVersions(LadderStep step, ClusterState state) {
    if (!step.toVersion().minorAbove(step.fromVersion())) return List.of();
    Optional<EtcdVersion> minimum = VersionLadder.minimumBefore(step.toMinor());
    List<String> problems = new ArrayList<>();
    for (MemberStatus m : state.members()) {
      Optional<EtcdVersion> reported = EtcdVersion.find(m.serverVersion());
      if (!m.reachable() || reported.isEmpty()) continue;
      EtcdVersion v = reported.get();
      boolean belowMinor = v.isBefore(step.fromVersion()) && !v.sameMinor(step.fromVersion());
      boolean belowMinimum = minimum.filter(v::isBefore).isPresent();
      if (belowMinor || belowMinimum) {
        problems.add(
            ("member %s reports etcd %s, but %s needs every member on %s or later first (etcd's"
                    + " %s upgrade guide; etcd upgrades one minor at a time): bring it to %s"
                    + " (start the upgrade again: the ladder starts from the lowest version"
                    + " running)")
                .formatted(
                    m.name(),
                    v,
                    step.label(),
                    minimum.filter(min -> !belowMinor).orElse(step.fromVersion()),
                    step.toMinor(),
                    step.fromVersion()));
      }
    }
    return problems;
  }
}
