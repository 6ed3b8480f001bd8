package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberFlags;
import io.etcdrunbooks.workflows.model.MemberStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A member whose database is near its quota raises NOSPACE (and etcd turns read-only) as soon as
 * the upgrade's writes and restarts add to it: refused first, with the remedy.
 */
final class QuotaRule {

  /** etcd's default --quota-backend-bytes (2 GiB) when a member sets none. */
  static final long DEFAULT_QUOTA = MemberFlags.DEFAULT_QUOTA_BYTES;

  static final double NEAR = 0.8;

  private QuotaRule() {}

  static List<String> problems(ClusterState state, List<MemberFlags> flags) {
    List<String> problems = new ArrayList<>();
    for (MemberFlags f : flags) {
      Optional<MemberStatus> status = state.member(f.member());
      if (status.isEmpty() || !status.get().reachable()) continue;
      long quota = quotaOf(f);
      long size = status.get().dbSizeBytes();
      if (quota > 0 && size >= NEAR * quota) {
        problems.add(
            "member %s's database is %d MiB, %d%% of its %d MiB quota: compact (etcdctl compact <revision>) and defragment it (etcdctl defrag, one member at a time) before upgrading, or raise --quota-backend-bytes"
                .formatted(f.member(), size >> 20, Math.round(100.0 * size / quota), quota >> 20));
      }
    }
    return problems;
  }

  /** The quota the member runs with: its flag, else its ETCD_ variable, else etcd's default. */
  static long quotaOf(MemberFlags f) {
    return f.quotaBackendBytes();
  }
}
