package io.etcdrunbooks.workflows.replacemember;

import io.etcdrunbooks.workflows.activities.NewMemberActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.ConsistencyReport;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.MemberFlags;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.testing.UnsupportedApiServerActivities;
import io.etcdrunbooks.workflows.testing.UnsupportedEtcdActivities;
import io.etcdrunbooks.workflows.testing.UnsupportedHostActivities;
import io.etcdrunbooks.workflows.testing.UnsupportedInventoryActivities;
import io.etcdrunbooks.workflows.testing.UnsupportedMembershipActivities;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A cluster in memory as a member replacement sees it: etcd's membership (by peer URL), the
 * inventory, the members' hosts and the control-plane hosts with the {@code --etcd-servers} of
 * their kube-apiservers. Members m1..m3 on hosts 10.0.0.1..3, control-plane hosts cp-1..cp-3
 * listing every member. Faults are injected by name.
 */
final class FakeReplacement
    implements UnsupportedEtcdActivities,
        UnsupportedHostActivities,
        UnsupportedMembershipActivities,
        NewMemberActivities,
        UnsupportedInventoryActivities,
        UnsupportedApiServerActivities {

  static final String VERSION = "3.4.23";
  static final List<String> CONTROL_PLANE = List.of("cp-1", "cp-2", "cp-3");

  private static final class Member {
    final long id;
    final String peerUrl;
    String name;
    String clientUrl;
    boolean up;
    boolean learner;

    Member(long id, String name, String peerUrl, String clientUrl, boolean up, boolean learner) {
      this.id = id;
      this.name = name;
      this.peerUrl = peerUrl;
      this.clientUrl = clientUrl;
      this.up = up;
      this.learner = learner;
    }
  }

  private final String cluster;
  private final Map<String, Member> etcd = new LinkedHashMap<>();
  private final List<MemberPlacement> inventory = new ArrayList<>();
  private final Map<String, List<String>> manifests = new LinkedHashMap<>();
  private final Map<String, List<String>> previousManifests = new LinkedHashMap<>();
  private final Set<String> unhealthyAfterChange = new HashSet<>();
  private final Set<String> restoreFails = new HashSet<>();
  private final List<String> undone = new ArrayList<>();
  private long nextId = 1;
  private String leader = "m1";
  private List<String> hostProblems = List.of();
  private String startFails = "";
  private String removeFailsFor = "";
  private boolean staysLearner;
  private boolean inventoryReadOnly;

  FakeReplacement(String cluster) {
    this.cluster = cluster;
    for (int i = 1; i <= 3; i++) {
      MemberPlacement m = placement("m" + i, "10.0.0." + i);
      inventory.add(m);
      etcd.put(
          m.peerUrl(), new Member(nextId++, m.name(), m.peerUrl(), m.clientUrl(), true, false));
    }
    for (String host : CONTROL_PLANE) manifests.put(host, clientUrls());
  }

  static MemberPlacement placement(String name, String host) {
    return new MemberPlacement(
        name,
        host,
        22,
        "https://" + host + ":2380",
        "https://" + host + ":2379",
        "/var/lib/etcd",
        "/opt/etcd",
        "/etc/etcd");
  }

  /** The member's etcd is down (its process gone); it stays in etcd's membership. */
  synchronized FakeReplacement down(String... names) {
    for (String name : names) member(name).up = false;
    return this;
  }

  /** The member answers again once the cluster has been discovered {@code discovers} times. */
  synchronized FakeReplacement comesBackAfter(String name, int discovers) {
    comesBack = name;
    comesBackAfter = discovers;
    return this;
  }

  private String comesBack = "";
  private int comesBackAfter;
  private int discovered;

  synchronized FakeReplacement hostProblems(String... problems) {
    hostProblems = List.of(problems);
    return this;
  }

  /** The new member's etcd does not stay up when started. */
  synchronized FakeReplacement startFails(String why) {
    startFails = why;
    return this;
  }

  /** Removing the member with this peer URL from etcd's membership fails. */
  synchronized FakeReplacement removeFailsFor(String peerUrl) {
    removeFailsFor = peerUrl;
    return this;
  }

  /** A promote answers as done, but the new member stays a learner. */
  synchronized FakeReplacement staysLearner() {
    staysLearner = true;
    return this;
  }

  synchronized FakeReplacement inventoryReadOnly() {
    inventoryReadOnly = true;
    return this;
  }

  /** The kube-apiserver on this host is not healthy once its manifest changed. */
  synchronized FakeReplacement unhealthyAfterChange(String host) {
    unhealthyAfterChange.add(host);
    return this;
  }

  synchronized FakeReplacement restoreFails(String host) {
    restoreFails.add(host);
    return this;
  }

  /** etcd's member names (a member added but not started has none: its peer URL instead). */
  synchronized List<String> etcdMembers() {
    return etcd.values().stream()
        .map(m -> m.name.isEmpty() ? m.peerUrl : m.name + (m.learner ? " (learner)" : ""))
        .toList();
  }

  synchronized List<String> inventoryMembers() {
    return inventory.stream().map(MemberPlacement::name).toList();
  }

  synchronized List<String> etcdServers(String host) {
    return List.copyOf(manifests.get(host));
  }

  /** What was undone on hosts, in order: "discard m4". */
  synchronized List<String> undone() {
    return List.copyOf(undone);
  }

  // etcd

  @Override
  public synchronized ClusterState discover(ClusterRef ref) {
    if (!ref.cluster().equals(cluster))
      throw FailureType.UnknownCluster.nonRetryable("no cluster '" + ref.cluster() + "'");
    if (++discovered >= comesBackAfter && !comesBack.isEmpty()) member(comesBack).up = true;
    Member lead =
        etcd.values().stream()
            .filter(m -> m.name.equals(leader) && m.up)
            .findFirst()
            .or(() -> etcd.values().stream().filter(m -> m.up && !m.learner).findFirst())
            .orElse(null);
    leader = lead == null ? "" : lead.name;
    List<MemberStatus> statuses = new ArrayList<>();
    for (MemberPlacement p : inventory) {
      Member m = etcd.get(p.peerUrl());
      boolean up = m != null && m.up;
      statuses.add(
          new MemberStatus(
              p.name(),
              up ? m.id : 0,
              up,
              up,
              up ? VERSION : "",
              up && m.learner,
              1024,
              100,
              100,
              lead == null ? 0 : lead.id,
              up ? List.of() : List.of("connection refused")));
    }
    return new ClusterState(cluster, statuses, leader, "3.4.0", List.of(), 10);
  }

  @Override
  public synchronized ConsistencyReport checkConsistency(ClusterRef ref) {
    Map<String, Long> hashes = new LinkedHashMap<>();
    etcd.values().stream().filter(m -> m.up).forEach(m -> hashes.put(m.name, 42L));
    Map<String, Long> indexes = new LinkedHashMap<>();
    hashes.keySet().forEach(n -> indexes.put(n, 100L));
    return new ConsistencyReport(10, hashes, indexes, true);
  }

  @Override
  public synchronized ConsistencyReport checkConsistencyAt(ConsistencyRequest request) {
    ConsistencyReport all = checkConsistency(new ClusterRef(request.cluster()));
    Map<String, Long> hashes = new LinkedHashMap<>(all.hashByMember());
    hashes.keySet().removeIf(n -> !request.members().isEmpty() && !request.members().contains(n));
    return new ConsistencyReport(
        request.revision() > 0 ? request.revision() : all.revision(),
        hashes,
        all.raftIndexByMember(),
        true,
        0);
  }

  @Override
  public synchronized void moveLeader(MoveLeaderRequest request) {
    leader = request.toMember();
  }

  // hosts of the members

  @Override
  public synchronized List<String> checkAccess(HostAccessRequest request) {
    return hostProblems;
  }

  @Override
  public String logTail(LogTailRequest request) {
    return "";
  }

  @Override
  public MemberFlags memberFlags(MemberRef member) {
    return new MemberFlags(member.member(), List.of(), Map.of(), true);
  }

  // membership

  @Override
  public synchronized List<EtcdMember> listMembers(ClusterRef ref) {
    return etcd.values().stream()
        .map(
            m ->
                new EtcdMember(
                    m.id,
                    m.name,
                    List.of(m.peerUrl),
                    m.clientUrl.isEmpty() ? List.of() : List.of(m.clientUrl),
                    m.learner))
        .toList();
  }

  @Override
  public synchronized long removeMember(RemoveMemberRequest request) {
    if (request.peerUrl().equals(removeFailsFor)) {
      throw FailureType.MembershipChangeRefused.nonRetryable(
          "etcd refused to remove " + request.peerUrl());
    }
    Member gone = etcd.remove(request.peerUrl());
    return gone == null ? 0 : gone.id;
  }

  @Override
  public synchronized EtcdMember addMember(AddMemberRequest request) {
    Member m =
        etcd.computeIfAbsent(
            request.peerUrl(), url -> new Member(nextId++, "", url, "", false, request.learner()));
    return new EtcdMember(m.id, m.name, List.of(m.peerUrl), List.of(), m.learner);
  }

  @Override
  public synchronized EtcdMember promoteMember(PromoteMemberRequest request) {
    Member m = etcd.get(request.peerUrl());
    if (!staysLearner) m.learner = false;
    return new EtcdMember(m.id, m.name, List.of(m.peerUrl), List.of(m.clientUrl), m.learner);
  }

  @Override
  public synchronized MemberStatus awaitNewMemberReady(AwaitNewMemberRequest request) {
    Member m = etcd.get(request.member().peerUrl());
    if (m == null || !m.up) {
      throw FailureType.MemberNotReady.nonRetryable(request.member().name() + " is not up");
    }
    return new MemberStatus(
        m.name, m.id, true, true, VERSION, m.learner, 1024, 100, 100, 1, List.of());
  }

  // the new member's host

  @Override
  public void checkHost(NewMemberRequest request) {}

  @Override
  public void checkPlacement(PlacementRequest request) {}

  @Override
  public void prepare(PrepareRequest request) {}

  @Override
  public synchronized void start(NewMemberRequest request) {
    if (!startFails.isEmpty())
      throw ApplicationFailure.newNonRetryableFailure(startFails, "MemberStartFailed");
    Member m = etcd.get(request.member().peerUrl());
    if (m == null)
      throw ApplicationFailure.newNonRetryableFailure(
          "not a member: " + request.member().peerUrl(), "MemberStartFailed");
    m.name = request.member().name();
    m.clientUrl = request.member().clientUrl();
    m.up = true;
  }

  @Override
  public synchronized void discard(NewMemberRequest request) {
    undone.add("discard " + request.member().name());
    Member m = etcd.get(request.member().peerUrl());
    if (m != null) m.up = false;
  }

  @Override
  public String logTail(NewMemberRequest request) {
    return "bind: address already in use";
  }

  // inventory

  @Override
  public synchronized List<MemberPlacement> members(ClusterRef ref) {
    if (!ref.cluster().equals(cluster))
      throw FailureType.UnknownCluster.nonRetryable("no cluster '" + ref.cluster() + "'");
    if (++discovered >= comesBackAfter && !comesBack.isEmpty()) member(comesBack).up = true;
    return List.copyOf(inventory);
  }

  @Override
  public synchronized void checkWritable(ClusterRef ref) {
    if (inventoryReadOnly)
      throw ApplicationFailure.newNonRetryableFailure(
          "the inventory file is not writable", "InventoryReadOnly");
  }

  @Override
  public synchronized boolean recordReplacement(RecordReplacementRequest request) {
    for (int i = 0; i < inventory.size(); i++) {
      if (inventory.get(i).name().equals(request.replacedMember())) {
        inventory.set(i, request.member());
        return true;
      }
    }
    return false;
  }

  // kube-apiservers

  @Override
  public List<String> controlPlaneHosts(ClusterRef ref) {
    return CONTROL_PLANE;
  }

  @Override
  public synchronized boolean replaceEtcdServer(ReplaceEtcdServerRequest request) {
    List<String> servers = manifests.get(request.host());
    if (!servers.contains(request.oldUrl())) return false;
    previousManifests.put(request.host(), servers);
    manifests.put(
        request.host(),
        servers.stream().map(s -> s.equals(request.oldUrl()) ? request.newUrl() : s).toList());
    return true;
  }

  @Override
  public synchronized void restoreManifest(ControlPlaneRef host) {
    if (restoreFails.contains(host.host())) {
      throw ApplicationFailure.newNonRetryableFailure(
          "cannot write the manifest on " + host.host(), "ManifestWriteFailed");
    }
    undone.add("restore manifest " + host.host());
    List<String> previous = previousManifests.remove(host.host());
    if (previous != null) manifests.put(host.host(), previous);
  }

  @Override
  public synchronized void awaitHealthy(AwaitApiServerRequest request) {
    if (unhealthyAfterChange.contains(request.host())
        && previousManifests.containsKey(request.host())) {
      throw ApplicationFailure.newNonRetryableFailure(
          "/readyz answered 503 for 5 s", "ApiServerNotReady");
    }
  }

  private Member member(String name) {
    return etcd.values().stream().filter(m -> m.name.equals(name)).findFirst().orElseThrow();
  }

  private List<String> clientUrls() {
    return inventory.stream().map(MemberPlacement::clientUrl).toList();
  }

  @Override
  public boolean awaitRestartSettled(io.etcdrunbooks.workflows.model.MemberRef member) {
    return false;
  }
}
