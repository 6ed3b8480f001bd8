package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.V2DataOwners;
import io.etcdrunbooks.workflows.model.V2Store;
import java.util.ArrayList;
import java.util.List;

/**
 * What a version transition needs beyond a new binary, checked on the planned ladder before any
 * member is touched. Each rule comes from etcd's own upgrade guide for the target minor.
 */
final class TransitionRules {

  /**
   * Releases never to land on: https://etcd.io/docs/v3.5/op-guide/data_corruption/ and the 3.5
   * upgrade guide ("3.5.0, 3.5.1 and 3.5.2 have a data inconsistency issue, upgrade to 3.5.3 or
   * later").
   */
  private static final List<EtcdVersion> NEVER_LAND =
      List.of(
          new EtcdVersion(3, 5, 0),
          new EtcdVersion(3, 5, 1),
          new EtcdVersion(3, 5, 2)); // data inconsistency under load (fixed in 3.5.3)

  private TransitionRules() {}

  /** Whether the ladder enters 3.4 (v2 API off by default) or 3.6 (v2 store removed). */
  static boolean endsV2Api(EtcdVersion running, List<EtcdVersion> ladder) {
    List<String> entered = VersionLadder.minorsEntered(running, ladder);
    return entered.contains("3.4") || entered.contains("3.6");
  }

  /**
   * What remains by prefix and who likely owns it: after MigrateV2ToV3 only what is not Kubernetes'
   * (flannel's and Calico's v2 data), which that runbook leaves where it is.
   */
  private static String owners(V2Store v2) {
    if (v2.byPrefix().isEmpty()) return "";
    return ". By prefix: "
        + V2DataOwners.describe(v2.byPrefix())
        + (v2.byPrefix().containsKey("/registry")
            ? ""
            : ". None of it is Kubernetes' (MigrateV2ToV3 leaves other prefixes untouched): move"
                + " each owner off the v2 store (flannel to its kube subnet manager or etcd v3"
                + " support, Calico to its etcdv3 or Kubernetes datastore) or delete the prefix if"
                + " nothing uses it, then upgrade");
  }

  static List<String> problems(ClusterState state, EtcdVersion running, List<EtcdVersion> ladder) {
    List<String> problems = new ArrayList<>();
    for (EtcdVersion step : ladder) {
      if (NEVER_LAND.contains(step)) {
        problems.add(
            "etcd %s is not a version to run: 3.5.0 to 3.5.2 can lose data consistency under load (etcd's 3.5 upgrade guide); choose 3.5.3 or later"
                .formatted(step));
      }
    }
    V2Store v2 = state.v2Store();
    // one minor at a time: entering 3.5 means coming from 3.4; entering 3.6 from 3.5
    List<String> entered = VersionLadder.minorsEntered(running, ladder);
    boolean v2Matters = endsV2Api(running, ladder);
    if (v2Matters && v2.unread() != null) {
      problems.add(
          "the v2 store of cluster '%s' could not be read (%s), so it is not known whether this upgrade would cut v2 clients off their data; fix that and try again"
              .formatted(state.cluster(), v2.unread()));
    }
    if (v2Matters && v2.holdsData()) {
      // etcd 3.4 turns the v2 API off by default (--enable-v2=false) and 3.6 removes the v2 store:
      // https://etcd.io/docs/v3.4/upgrades/upgrade_3_4/ and
      // https://etcd.io/docs/v3.6/upgrades/upgrade_3_6/
      problems.add(
          "cluster '%s' holds %d keys in the v2 store (%d with a TTL; v2 API served by %s): etcd 3.4 turns the v2 API off by default and 3.6 removes the v2 store, so whatever reads them (a kube-apiserver with --storage-backend=etcd2) would lose them. Migrate them to v3 first with the MigrateV2ToV3 runbook (POST /api/v1/clusters/%s/migrate-v2-to-v3; docs/runbooks/migrate-v2-to-v3.md), or delete them if nothing uses them"
                  .formatted(
                      state.cluster(), v2.keys(), v2.keysWithTtl(), v2.servedBy(), state.cluster())
              + owners(v2));
    }
    if (state.authOn() && entered.contains("3.5")) {
      // etcd's "Upgrade etcd from 3.4 to 3.5" guide: with auth enabled a mixed 3.4/3.5 cluster
      // fails authentication (the auth revision check differs), so no rolling upgrade with auth on.
      problems.add(
          "authentication is on in cluster '%s', and etcd does not support a rolling upgrade from 3.4 to 3.5 with it on (etcd's 3.5 upgrade guide). Either turn it off for the upgrade (etcdctl auth disable, upgrade, etcdctl auth enable), or upgrade every member at once in a maintenance window"
              .formatted(state.cluster()));
    }
    return problems;
  }
}
