package io.etcdrunbooks.activities.etcd;

import io.etcd.jetcd.maintenance.StatusResponse;
import io.etcdrunbooks.activities.support.DaemonThreads;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.FencedMemberSpec;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberStatus;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Discovery's look for members RecoverQuorum fenced (the inventory's tombstones) that answer again
 * at their client URL: a machine thought destroyed that came back, or a member started by hand. Its
 * etcd holds the old membership under the cluster's id, so it is stopped and fenced on its host at
 * once, and reported; never left to serve.
 */
final class FencedMembersCheck {

  /** What stops a fenced member found answering, on its host; returns what it did. */
  interface Stopper {
    String stop(ClusterSpec cluster, FencedMemberSpec member);
  }

  /** For a process that does not log in to hosts (the API): it reports only. */
  static final Stopper REPORT_ONLY =
      (cluster, member) -> {
        throw new IllegalStateException("this process does not log in to hosts");
      };

  private static final Logger log = LoggerFactory.getLogger(FencedMembersCheck.class);
  private static final Duration STATUS_TIMEOUT = Duration.ofSeconds(2);
  private static final ExecutorService LOOKS = DaemonThreads.cachedPool("fenced-member-look");

  private FencedMembersCheck() {}

  /** One line per fenced member found answering, saying what was done; empty when none answers. */
  static List<String> check(ClusterSpec spec, ClusterState state, Stopper stopper) {
    Set<Long> current =
        state.members().stream()
            .filter(MemberStatus::reachable)
            .map(MemberStatus::id)
            .collect(Collectors.toSet());
    List<CompletableFuture<Optional<String>>> looks =
        spec.fenced().stream()
            .map(t -> CompletableFuture.supplyAsync(() -> look(spec, t, current, stopper), LOOKS))
            .toList();
    return looks.stream().map(CompletableFuture::join).flatMap(Optional::stream).toList();
  }

  private static Optional<String> look(
      ClusterSpec spec, FencedMemberSpec tombstone, Set<Long> current, Stopper stopper) {
    long id;
    try (EtcdClients clients = new EtcdClients(spec.withMembers(List.of(tombstone.member())))) {
      StatusResponse status =
          EtcdClients.await(
              clients
                  .member(tombstone.name())
                  .getMaintenanceClient()
                  .statusMember(EtcdClients.target(tombstone.member())),
              "status at " + tombstone.clientUrl(),
              STATUS_TIMEOUT);
      id = status.getHeader().getMemberId();
    } catch (EtcdCallException | IllegalArgumentException e) {
      return Optional.empty(); // nothing answers there: as it should be
    }
    if (current.contains(id)) return Optional.empty(); // a member of the cluster now (same URL)
    String who =
        "fenced member %s (%s by %s) answers again at %s as etcd member %s"
            .formatted(
                tombstone.name(),
                tombstone.how(),
                tombstone.fencedBy(),
                tombstone.clientUrl(),
                Long.toHexString(id));
    if (!tombstone.memberId().isBlank() && !tombstone.memberId().equals(Long.toHexString(id))) {
      String found =
          who
              + ", which is neither the fenced member (id "
              + tombstone.memberId()
              + ") nor a member of the cluster: not stopped; find out what runs there";
      log.warn("cluster '{}': {}", spec.name(), found);
      return Optional.of(found);
    }
    String found;
    try {
      found =
          who
              + " with the old membership: stopped and fenced on its host so that it cannot serve"
              + " the old state ("
              + stopper.stop(spec, tombstone)
              + ")";
    } catch (RuntimeException e) {
      found =
          who
              + " with the old membership, and could not be stopped ("
              + e.getMessage()
              + "): stop it on "
              + tombstone.host()
              + " now, disable its service and rename its data dir "
              + tombstone.dataDir();
    }
    log.warn("cluster '{}': {}", spec.name(), found);
    return Optional.of(found);
  }
}
