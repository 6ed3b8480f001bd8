package io.etcdrunbooks.activities.etcd;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.cluster.Member;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.activities.support.WaitDeadline;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.workflows.activities.EtcdActivities.AwaitMemberRequest;
import io.etcdrunbooks.workflows.activities.MembershipActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberStatus;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link MembershipActivities} through jetcd's cluster API; the inventory gives the endpoints and
 * TLS.
 */
public final class MembershipActivitiesImpl implements MembershipActivities {

  private static final Logger log = LoggerFactory.getLogger(MembershipActivitiesImpl.class);
  private static final long PROMOTE_POLL_MILLIS = 500;

  /** Twice etcd's HealthInterval: how long an add refused as "unhealthy cluster" is asked again. */
  private static final java.time.Duration CONNECTED_WAIT = java.time.Duration.ofSeconds(10);

  private final ClusterTargets targets;

  public MembershipActivitiesImpl(ClusterTargets targets) {
    this.targets = targets;
  }

  @Override
  public List<EtcdMember> listMembers(ClusterRef cluster) {
    return withClients(cluster.cluster(), MembershipActivitiesImpl::list);
  }

  @Override
  public long removeMember(RemoveMemberRequest request) {
    return withClients(
        request.cluster(),
        voter -> {
          List<EtcdMember> members = list(voter);
          Optional<EtcdMember> target = byPeerUrl(members, request.peerUrl());
          if (target.isEmpty()) {
            log.info(
                "cluster '{}': no member has peer URL {}; already removed",
                request.cluster(),
                request.peerUrl());
            return 0L;
          }
          EtcdMember member = target.get();
          long voters = members.stream().filter(m -> !m.learner()).count();
          if (!member.learner() && voters <= 1) {
            throw FailureType.LastVotingMember.nonRetryable(
                "refusing to remove member "
                    + describe(member)
                    + " of cluster '"
                    + request.cluster()
                    + "': it is the last voting member, the cluster would be gone. Restore from a backup instead");
          }
          try {
            EtcdClients.await(
                voter.client().getClusterClient().removeMember(member.id()),
                "remove member " + describe(member) + " of cluster '" + request.cluster() + "'");
          } catch (EtcdCallException e) {
            // a retry after a removal whose answer was lost finds the member gone
            if (byPeerUrl(list(voter), request.peerUrl()).isPresent()) throw e;
          }
          log.info("cluster '{}': member {} removed", request.cluster(), describe(member));
          return member.id();
        });
  }

  @Override
  public boolean updatePeerUrl(UpdatePeerUrlRequest request) {
    return withClients(
        request.cluster(),
        voter -> {
          EtcdMember member =
              list(voter).stream()
                  .filter(m -> m.name().equals(request.member()))
                  .findFirst()
                  .orElseThrow(
                      () ->
                          FailureType.MembershipChangeRefused.nonRetryable(
                              "cluster '%s' has no started member named '%s' to give peer URL %s"
                                  .formatted(
                                      request.cluster(), request.member(), request.peerUrl())));
          if (member.peerUrls().equals(List.of(request.peerUrl()))) return false;
          EtcdClients.await(
              voter
                  .client()
                  .getClusterClient()
                  .updateMember(member.id(), List.of(URI.create(request.peerUrl()))),
              "update the peer URL of member " + describe(member) + " to " + request.peerUrl());
          log.info(
              "cluster '{}': member {} now advertises peer URL {}",
              request.cluster(),
              describe(member),
              request.peerUrl());
          return true;
        });
  }

  @Override
  public EtcdMember addMember(AddMemberRequest request) {
    return withClients(
        request.cluster(),
        voter -> {
          Optional<EtcdMember> existing = byPeerUrl(list(voter), request.peerUrl());
          if (existing.isPresent()) {
            log.info(
                "cluster '{}': member {} already added",
                request.cluster(),
                describe(existing.get()));
            return existing.get();
          }
          String what =
              "add "
                  + (request.learner() ? "learner" : "voting member")
                  + " with peer URL "
                  + request.peerUrl()
                  + " to cluster '"
                  + request.cluster()
                  + "'";
          Member added;
          long healthyBy = System.nanoTime() + CONNECTED_WAIT.toNanos();
          while (true) {
            try {
              added =
                  EtcdClients.await(
                          voter
                              .client()
                              .getClusterClient()
                              .addMember(List.of(URI.create(request.peerUrl())), request.learner()),
                          what)
                      .getMember();
              break;
            } catch (EtcdCallException e) {
              Optional<EtcdMember> raced = byPeerUrl(list(voter), request.peerUrl());
              if (raced.isPresent()) return raced.get();
              if (refusedForGood(e)) {
                throw FailureType.MembershipChangeRefused.nonRetryable(
                    "cannot " + what + ": " + e.getMessage());
              }
              // etcd adds a member only once the leader has been connected to every voter for 5 s
              // (its HealthInterval): a member just started or promoted is waited for here, not
              // by the activity's retries, whose backoff overshot it by seconds
              if (!e.getMessage().contains("unhealthy cluster") || System.nanoTime() > healthyBy)
                throw e;
              Heartbeats.beat("cluster not yet connected to every voter for 5 s: " + what);
              Heartbeats.pause(PROMOTE_POLL_MILLIS);
            }
          }
          EtcdMember member = toMember(added);
          log.info("cluster '{}': added {}", request.cluster(), describe(member));
          return member;
        });
  }

  @Override
  public EtcdMember promoteMember(PromoteMemberRequest request) {
    return withClients(
        request.cluster(),
        voter -> {
          WaitDeadline deadline = WaitDeadline.afterSeconds(request.timeoutSeconds());
          String last = "";
          while (true) {
            EtcdMember member =
                byPeerUrl(list(voter), request.peerUrl())
                    .orElseThrow(
                        () ->
                            FailureType.UnknownMember.nonRetryable(
                                "cluster '"
                                    + request.cluster()
                                    + "' has no member with peer URL "
                                    + request.peerUrl()
                                    + " to promote; was it removed?"));
            if (!member.learner()) return member;
            try {
              EtcdClients.await(
                  voter.client().getClusterClient().promoteMember(member.id()),
                  "promote learner "
                      + describe(member)
                      + " of cluster '"
                      + request.cluster()
                      + "'");
              log.info("cluster '{}': learner {} promoted", request.cluster(), describe(member));
              continue; // read it back
            } catch (EtcdCallException e) {
              if (!e.getMessage().contains("in sync")) throw e;
              last = e.getMessage();
            }
            if (deadline.passed()) {
              throw FailureType.MemberNotReady.nonRetryable(
                  "learner "
                      + describe(member)
                      + " of cluster '"
                      + request.cluster()
                      + "' could not be promoted within "
                      + request.timeoutSeconds()
                      + " s: "
                      + last
                      + ". It has not caught up with the leader: check its disk and network, and its log");
            }
            Heartbeats.beat("learner " + describe(member) + " not yet in sync with the leader");
            Heartbeats.pause(PROMOTE_POLL_MILLIS);
          }
        });
  }

  @Override
  public MemberStatus awaitNewMemberReady(AwaitNewMemberRequest request) {
    ClusterSpec spec = withPlacement(targets.cluster(request.cluster()), request.member());
    try (EtcdClients clients = targets.clients(spec)) {
      return MemberReadiness.await(
          new ClusterInspector(clients),
          new AwaitMemberRequest(
              request.cluster(),
              request.member().name(),
              request.expectedVersion(),
              request.timeoutSeconds()));
    } catch (EtcdCallException e) {
      throw FailureType.MembersUnreachable.retryable(e.getMessage(), e);
    }
  }

  /**
   * The cluster as it is once the placement has joined: members with its name or peer URL give way
   * to it.
   */
  static ClusterSpec withPlacement(ClusterSpec spec, MemberPlacement p) {
    List<MemberSpec> members = new ArrayList<>();
    for (MemberSpec m : spec.members()) {
      if (!m.name().equals(p.name()) && !m.peerUrl().equals(p.peerUrl())) members.add(m);
    }
    members.add(
        new MemberSpec(
            p.name(),
            p.host(),
            p.sshPort(),
            p.clientUrl(),
            p.peerUrl(),
            p.dataDir(),
            p.installDir(),
            p.serviceDir()));
    return spec.withMembers(members);
  }

  private static List<EtcdMember> list(Voter voter) {
    return list(voter.cluster(), voter.client());
  }

  private static List<EtcdMember> list(String cluster, Client client) {
    return EtcdClients.await(
            client.getClusterClient().listMember(), "member list of cluster '" + cluster + "'")
        .getMembers()
        .stream()
        .map(MembershipActivitiesImpl::toMember)
        .toList();
  }

  private static EtcdMember toMember(Member m) {
    return new EtcdMember(
        m.getId(), m.getName(), urls(m.getPeerURIs()), urls(m.getClientURIs()), m.isLearner());
  }

  private static List<String> urls(List<URI> uris) {
    return uris.stream().map(u -> u.toString().replaceAll("/+$", "")).toList();
  }

  private static Optional<EtcdMember> byPeerUrl(List<EtcdMember> members, String peerUrl) {
    String wanted = peerUrl.replaceAll("/+$", "");
    return members.stream().filter(m -> m.hasPeerUrl(wanted)).findFirst();
  }

  /** etcd's answers that say the change is wrong, not that the cluster is busy. */
  private static boolean refusedForGood(EtcdCallException e) {
    String text = e.getMessage();
    return text.contains("Peer URLs already exists")
        || text.contains("too many learner")
        || text.contains("invalid argument");
  }

  private static String describe(EtcdMember m) {
    return (m.name().isEmpty() ? "(not started)" : "'" + m.name() + "'")
        + " id "
        + m.hexId()
        + " "
        + m.peerUrls();
  }

  private <T> T withClients(String cluster, Function<Voter, T> work) {
    try (EtcdClients clients = targets.clients(cluster)) {
      return work.apply(voter(clients));
    } catch (EtcdCallException e) {
      throw FailureType.MembersUnreachable.retryable(e.getMessage(), e);
    }
  }

  /**
   * A client bound to one voting member: learners refuse membership calls ("rpc not supported for
   * learner").
   */
  private record Voter(String cluster, Client client) {}

  private static Voter voter(EtcdClients clients) {
    List<String> tried = new ArrayList<>();
    for (MemberSpec m : clients.spec().members()) {
      Client client = clients.member(m.name());
      try {
        List<EtcdMember> members = list(clients.spec().name(), client);
        boolean learner =
            members.stream().anyMatch(e -> e.learner() && e.clientUrls().contains(m.clientUrl()));
        if (!learner) return new Voter(clients.spec().name(), client);
        tried.add(m.name() + ": a learner");
      } catch (EtcdCallException e) {
        tried.add(m.name() + ": " + e.getMessage());
      }
    }
    throw new EtcdCallException(
        "no voting member of cluster '"
            + clients.spec().name()
            + "' answers the member list: "
            + tried,
        null);
  }
}
