package io.etcdrunbooks.activities.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.cluster.Member;
import io.etcd.jetcd.maintenance.AlarmMember;
import io.etcd.jetcd.maintenance.StatusResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcdrunbooks.activities.support.DaemonThreads;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.model.ServerCertificates;
import io.etcdrunbooks.workflows.model.V2Store;
import java.io.IOException;
import java.net.URI;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Looks at a cluster through the etcd API: member ids, each member's status and health, the leader,
 * the cluster version, alarms and the current revision. Never throws for an unreachable member: it
 * comes back with {@code reachable=false} and the reason in its errors.
 */
public final class ClusterInspector {

  private final ClusterSpec spec;
  private final EtcdClients clients;
  private final ClusterVersionReader http;
  private Map<String, Long> idByName;

  /** etcd's member list as {@link #memberIds} read it; null until then. */
  private List<Member> listedMembers;

  public ClusterInspector(EtcdClients clients) {
    this.spec = clients.spec();
    this.clients = clients;
    this.http = new ClusterVersionReader(spec);
  }

  public EtcdClients clients() {
    return clients;
  }

  public ClusterVersionReader http() {
    return http;
  }

  /**
   * Every inventory member with its etcd member id, from the member list (matched by peer URL, then
   * name).
   */
  public synchronized Map<String, Long> memberIds() {
    if (idByName == null) {
      List<Member> listed = listMembers();
      listedMembers = List.copyOf(listed);
      Map<String, Long> ids = new HashMap<>();
      for (MemberSpec m : spec.members()) {
        URI peer = URI.create(m.peerUrl());
        listed.stream()
            .filter(l -> l.getPeerURIs().contains(peer))
            .findFirst()
            .or(() -> listed.stream().filter(l -> m.name().equals(l.getName())).findFirst())
            .ifPresent(l -> ids.put(m.name(), l.getId()));
      }
      idByName = Map.copyOf(ids);
    }
    return idByName;
  }

  /**
   * The members etcd lists whose id is no inventory member's (an unpromoted learner added by hand,
   * a removed member that reappeared); null when the member list was not read.
   */
  synchronized List<EtcdMember> beyondInventory() {
    if (listedMembers == null || idByName == null) return null;
    return listedMembers.stream()
        .filter(l -> !idByName.containsValue(l.getId()))
        .map(
            l ->
                new EtcdMember(
                    l.getId(),
                    l.getName() == null ? "" : l.getName(),
                    l.getPeerURIs().stream().map(Object::toString).toList(),
                    l.getClientURIs().stream().map(Object::toString).toList(),
                    l.isLearner()))
        .toList();
  }

  /**
   * etcd's member list through any member; a learner (3.4 refuses the call there) is skipped for
   * the next member.
   */
  private List<Member> listMembers() {
    String what = "member list of cluster '" + spec.name() + "'";
    try {
      return EtcdClients.await(clients.cluster().getClusterClient().listMember(), what)
          .getMembers();
    } catch (EtcdCallException e) {
      if (!e.getMessage().contains("learner")) throw e;
      for (MemberSpec m : spec.members()) {
        try {
          return EtcdClients.await(clients.member(m.name()).getClusterClient().listMember(), what)
              .getMembers();
        } catch (EtcdCallException next) {
          // a learner or a member that is down: the next one
        }
      }
      throw e;
    }
  }

  /**
   * The member list, or an empty map with no failure when no member answers (each status then says
   * why).
   */
  private Map<String, Long> memberIdsIfReachable() {
    try {
      return memberIds();
    } catch (EtcdCallException e) {
      return Map.of();
    }
  }

  public MemberStatus status(String memberName) {
    return status(memberName, true);
  }

  /**
   * As {@link #status}, without the member's /health (a read through raft): for a member whose
   * health was just seen, or a leader only asked for its raft index.
   */
  public MemberStatus raftStatus(String memberName) {
    return status(memberName, false);
  }

  private MemberStatus status(String memberName, boolean withHealth) {
    return status(memberName, withHealth, memberIdsIfReachable());
  }

  private MemberStatus status(String memberName, boolean withHealth, Map<String, Long> listed) {
    MemberSpec member = spec.member(memberName);
    return status(member, answer(member), withHealth, listed);
  }

  /** The member's own status answer (served by the member, not through raft), or why none came. */
  private record StatusAnswer(StatusResponse status, EtcdCallException failure) {

    boolean seesALeader() {
      return status != null && status.getLeader() != 0;
    }
  }

  private StatusAnswer answer(MemberSpec member) {
    try {
      return new StatusAnswer(
          EtcdClients.await(
              clients
                  .member(member.name())
                  .getMaintenanceClient()
                  .statusMember(EtcdClients.target(member)),
              "status of member '" + member.name() + "' at " + member.clientUrl()),
          null);
    } catch (EtcdCallException e) {
      return new StatusAnswer(null, e);
    }
  }

  private MemberStatus status(
      MemberSpec member, StatusAnswer answer, boolean withHealth, Map<String, Long> listed) {
    long listedId = listed.getOrDefault(member.name(), 0L);
    if (answer.failure() != null) {
      return new MemberStatus(
          member.name(),
          listedId,
          false,
          false,
          "",
          false,
          0,
          0,
          0,
          0,
          List.of(answer.failure().getMessage()));
    }
    StatusResponse status = answer.status();
    List<String> errors = new ArrayList<>(status.getErrorList());
    long id = status.getHeader().getMemberId();
    if (listedId != 0 && id != listedId) {
      errors.add(
          "member '"
              + member.name()
              + "' at "
              + member.clientUrl()
              + " answers as id "
              + Long.toHexString(id)
              + " but the member list gives its peer URL id "
              + Long.toHexString(listedId)
              + "; check the inventory URLs");
    }
    if (withHealth) health(member).ifPresent(errors::add);
    // etcd before 3.4 does not report the applied index
    long applied =
        status.getRaftAppliedIndex() == 0 ? status.getRaftIndex() : status.getRaftAppliedIndex();
    boolean healthy = errors.isEmpty() && status.getLeader() != 0;
    return new MemberStatus(
        member.name(),
        id,
        true,
        healthy,
        status.getVersion(),
        status.isLearner(),
        status.getDbSize(),
        status.getRaftIndex(),
        applied,
        status.getLeader(),
        List.copyOf(errors));
  }

  /**
   * Whether the member's /health says true: one plain HTTP request, no gRPC connection, so that
   * polling a member that is still starting does not put a client into its reconnect backoff.
   */
  public boolean answersHealthy(String memberName) {
    return health(spec.member(memberName)).isEmpty();
  }

  /** Why /health is not fine, empty when it is. */
  private Optional<String> health(MemberSpec member) {
    try {
      return http.healthy(member.clientUrl())
          ? Optional.empty()
          : Optional.of(member.clientUrl() + "/health reports false");
    } catch (IOException e) {
      return Optional.of("health check failed: " + e.getMessage());
    }
  }

  /**
   * Statuses of every inventory member, in inventory order, read at once: each is a connection, a
   * status call and a /health request, and a member that does not answer takes its timeout alone.
   */
  public List<MemberStatus> statuses() {
    // The members' own status answers first: the member list goes through raft, so without a
    // leader it only waits out its timeout (5 s per discovery of a cluster that lost quorum, the
    // case a recovery starts from). It is read once, not by each member's status, when one of them
    // sees a leader.
    List<CompletableFuture<StatusAnswer>> asked =
        spec.members().stream()
            .map(m -> CompletableFuture.supplyAsync(() -> answer(m), STATUS_READERS))
            .toList();
    List<StatusAnswer> answers =
        asked.stream().map(ClusterInspector::<StatusAnswer>joined).toList();
    Map<String, Long> listed =
        answers.stream().anyMatch(StatusAnswer::seesALeader) ? memberIdsIfReachable() : Map.of();
    List<CompletableFuture<MemberStatus>> reads = new ArrayList<>();
    for (int i = 0; i < answers.size(); i++) {
      MemberSpec member = spec.members().get(i);
      StatusAnswer answer = answers.get(i);
      reads.add(
          CompletableFuture.supplyAsync(
              () -> status(member, answer, true, listed), STATUS_READERS));
    }
    return reads.stream().map(ClusterInspector::<MemberStatus>joined).toList();
  }

  private static <T> T joined(CompletableFuture<T> read) {
    try {
      return read.join();
    } catch (java.util.concurrent.CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) throw cause;
      throw e;
    }
  }

  private static final ExecutorService STATUS_READERS =
      DaemonThreads.cachedPool("etcd-status-reader");

  /** Inventory name of the leader the most reachable members see, empty when none sees one. */
  public String leaderName(List<MemberStatus> statuses) {
    Map<Long, Long> votes =
        statuses.stream()
            .filter(s -> s.reachable() && s.leaderId() != 0)
            .collect(Collectors.groupingBy(MemberStatus::leaderId, Collectors.counting()));
    Optional<Long> leaderId =
        votes.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey);
    if (leaderId.isEmpty()) return "";
    Map<Long, String> nameById = new HashMap<>();
    memberIdsIfReachable().forEach((name, id) -> nameById.put(id, name));
    statuses.stream().filter(s -> s.id() != 0).forEach(s -> nameById.put(s.id(), s.name()));
    return nameById.getOrDefault(leaderId.get(), "");
  }

  /** The cluster version from /version of the first member that answers, empty when none does. */
  public String clusterVersion(List<MemberStatus> statuses) {
    for (MemberStatus s : statuses) {
      if (!s.reachable()) continue;
      try {
        return http.version(spec.member(s.name()).clientUrl()).etcdcluster();
      } catch (IOException e) {
        // try the next member
      }
    }
    return "";
  }

  /** Raised alarms as "NOSPACE on m2" (the member id in hex when it is not in the inventory). */
  public List<String> alarms() {
    Map<Long, String> nameById =
        memberIds().entrySet().stream()
            .collect(Collectors.toMap(Map.Entry::getValue, Map.Entry::getKey));
    List<AlarmMember> alarms =
        EtcdClients.await(
                clients.cluster().getMaintenanceClient().listAlarms(),
                "alarms of cluster '" + spec.name() + "'")
            .getAlarms();
    return alarms.stream()
        .map(
            a ->
                a.getAlarmType()
                    + " on "
                    + nameById.getOrDefault(a.getMemberId(), Long.toHexString(a.getMemberId())))
        .toList();
  }

  /** The current revision, read linearizably (through the leader). */
  public long currentRevision() {
    return EtcdClients.await(
            clients
                .cluster()
                .getKVClient()
                .get(
                    ByteSequence.from(new byte[] {0}),
                    GetOption.builder().withCountOnly(true).build()),
            "current revision of cluster '" + spec.name() + "'")
        .getHeader()
        .getRevision();
  }

  /** Everything at once; parts that need a reachable cluster are left empty when none answers. */
  /**
   * The cluster as its members report it. After the members' statuses, the reads that do not depend
   * on each other (authentication, alarms, revision, cluster version, v2 store, certificates) are
   * made at once: each is a round trip of its own.
   */
  public ClusterState state() {
    List<MemberStatus> statuses = statuses();
    boolean anyReachable = statuses.stream().anyMatch(MemberStatus::reachable);
    // the auth status, the alarm list and a linearizable get go through raft: without a leader
    // each would wait out its timeout and come back with nothing
    boolean leaderSeen = statuses.stream().anyMatch(s -> s.reachable() && s.leaderId() != 0);
    // 3.6 (and 3.5 since its late patches) refuse even a member's status without credentials
    boolean statusRefusedForCredentials =
        statuses.stream()
            .filter(s -> !s.reachable())
            .flatMap(s -> s.errors().stream())
            .anyMatch(EtcdCallException::saysAuthRequired);
    CompletableFuture<Boolean> authEnabled =
        read(
            () -> {
              if (statusRefusedForCredentials) return true;
              return leaderSeen ? clients.authEnabled().orElse(null) : null;
            });
    CompletableFuture<List<String>> alarms =
        read(
            () -> {
              if (leaderSeen || !anyReachable) return anyReachable ? alarms() : List.of();
              throw new EtcdCallException(
                  "alarm list of cluster '"
                      + spec.name()
                      + "': not asked, no member that answers sees a leader (no quorum)",
                  null);
            });
    CompletableFuture<Long> revision =
        read(() -> leaderSeen ? orElse(this::currentRevision, 0L) : 0L);
    CompletableFuture<String> clusterVersion = read(() -> clusterVersion(statuses));
    CompletableFuture<V2Store> v2 = read(() -> anyReachable ? v2Store(statuses) : null);
    CompletableFuture<ServerCertificates> certificates =
        read(() -> spec.tls() == null ? null : certificates(statuses));
    String leader = leaderName(statuses);
    String alarmsUnread = null;
    List<String> raised = List.of();
    try {
      raised = joined(alarms);
    } catch (EtcdCallException e) {
      alarmsUnread = e.getMessage();
    }
    return new ClusterState(
            spec.name(),
            statuses,
            leader,
            joined(clusterVersion),
            raised,
            joined(revision),
            alarmsUnread,
            joined(authEnabled),
            joined(v2),
            joined(certificates))
        .withBeyondInventory(beyondInventory());
  }

  private static <T> CompletableFuture<T> read(Supplier<T> read) {
    return CompletableFuture.supplyAsync(read, STATUS_READERS);
  }

  /**
   * The server certificate of every reachable member, from a real handshake on its client URL, and
   * its peer certificate from one on its peer URL when that is https.
   */
  private ServerCertificates certificates(List<MemberStatus> statuses) {
    Map<String, String> server = new LinkedHashMap<>();
    Map<String, String> peer = new LinkedHashMap<>();
    for (MemberStatus s : statuses) {
      if (!s.reachable()) continue;
      MemberSpec member = spec.member(s.name());
      try {
        http.serverCertificate(member.clientUrl())
            .ifPresent(c -> server.put(s.name(), notAfter(c)));
      } catch (IOException e) {
        // the member answered its status over gRPC; a failed handshake here shows in its health
      }
      try {
        http.peerCertificate(member.peerUrl()).ifPresent(c -> peer.put(s.name(), notAfter(c)));
      } catch (IOException e) {
        // a peer listener that does not answer the worker shows in raft, not here
      }
    }
    Integer days = spec.tls().expiryWarningDays();
    return new ServerCertificates(
        server, days == null ? ServerCertificates.DEFAULT_WARNING_DAYS : days, peer);
  }

  private static String notAfter(X509Certificate certificate) {
    return certificate.getNotAfter().toInstant().toString();
  }

  /**
   * Which reachable members serve the v2 API, and the v2 store's keys as the first of them shows
   * them (each member holds the whole store).
   */
  private V2Store v2Store(List<MemberStatus> statuses) {
    List<String> servedBy = new ArrayList<>();
    ClusterVersionReader.V2Keys keys = null;
    for (MemberStatus s : statuses) {
      if (!s.reachable()) continue;
      try {
        Optional<ClusterVersionReader.V2Keys> answer =
            http.v2Keys(spec.member(s.name()).clientUrl());
        if (answer.isEmpty()) continue;
        servedBy.add(s.name());
        if (keys == null) keys = answer.get();
      } catch (IOException e) {
        return V2Store.unreadable(e.getMessage());
      }
    }
    return keys == null
        ? V2Store.NOT_SERVED
        : new V2Store(servedBy, keys.keys(), keys.keysWithTtl(), null, keys.byPrefix());
  }

  private static <T> T orElse(Supplier<T> read, T fallback) {
    try {
      return read.get();
    } catch (EtcdCallException e) {
      return fallback;
    }
  }
}
