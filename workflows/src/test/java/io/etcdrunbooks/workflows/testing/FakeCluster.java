package io.etcdrunbooks.workflows.testing;

import io.etcdrunbooks.workflows.activities.EtcdActivities;
import io.etcdrunbooks.workflows.activities.HostActivities.SwitchOutcome;
import io.etcdrunbooks.workflows.activities.HostActivities.WatchRequest;
import io.etcdrunbooks.workflows.activities.ReleaseActivities;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.ClientConnections;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.ConsistencyReport;
import io.etcdrunbooks.workflows.model.EtcdMember;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.KeyspaceDigest;
import io.etcdrunbooks.workflows.model.KeyspaceHashes;
import io.etcdrunbooks.workflows.model.MemberFlags;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.model.V2Store;
import io.etcdrunbooks.workflows.model.VersionOffer;
import io.etcdrunbooks.workflows.upgrade.FlagTranslations;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiPredicate;

/**
 * A cluster in memory for workflow tests: members with an installed and a running version, a
 * leader, and the etcd, host, release and backup activities acting on them as the real ones act on
 * hosts. Faults are injected by member.
 */
public final class FakeCluster
    implements EtcdActivities,
        UnsupportedHostActivities,
        ReleaseActivities,
        UnsupportedBackupActivities {

  private static final class Member {
    final long id;
    String installed;
    String running = "";

    Member(long id, String version) {
      this.id = id;
      this.installed = version;
      this.running = version;
    }
  }

  private final String name;
  private final Map<String, Member> members = new LinkedHashMap<>();
  private final List<String> available;
  private String leader;
  private boolean moveLeaderFails;
  private BiPredicate<String, String> installFails = (member, version) -> false;
  private List<String> hostProblems = List.of();
  private String pinnedClusterVersion = "";
  private String downWhenStarted = "";
  private String notReady = "";
  private String goesDown = "";
  private int digestReads;
  private int hashReads;
  private boolean hashesFail;
  private long compactedBelow;
  private boolean keyspaceChanges;
  private String hashDiffersOn = "";
  private final Map<String, Integer> hashScans = new LinkedHashMap<>();
  private long revision = 10;
  private long revisionStep;
  private boolean authEnabled;
  private V2Store v2;
  private final List<String> alarms = new ArrayList<>();
  private List<String> movesClusterVersion = List.of();
  private final Map<String, List<String>> startArgs = new LinkedHashMap<>();
  private final Map<String, ClientConnections> connections = new LinkedHashMap<>();
  private final List<String> staged = new ArrayList<>();
  private String exitsOnStart = "";
  private boolean watchUnreachable;
  private final Map<String, Runnable> afterRestart = new LinkedHashMap<>();
  private List<EtcdMember> beyondInventory = List.of();

  /**
   * @param leader the member leading at first; every member starts healthy on version
   */
  public FakeCluster(
      String name,
      List<String> memberNames,
      String version,
      String leader,
      List<String> available) {
    this.name = name;
    long id = 1;
    for (String m : memberNames) members.put(m, new Member(id++, version));
    this.leader = leader;
    this.available = List.copyOf(available);
  }

  private volatile EtcdActivities readiness = this;

  /** A restart's readiness is read through {@code etcd} (a test's held or failing wait). */
  public FakeCluster readyThrough(EtcdActivities etcd) {
    readiness = etcd;
    return this;
  }

  /** The member runs the version once switched but never becomes ready on it. */
  public synchronized FakeCluster notReadyOn(String member, String version) {
    notReady = member + "@" + version;
    return this;
  }

  /**
   * The member's etcd exits right after it was started on the version: its watch fails at once, its
   * readiness only after a few seconds.
   */
  public synchronized FakeCluster exitsOnStart(String member, String version) {
    exitsOnStart = member + "@" + version;
    return this;
  }

  /**
   * Every watch of a started member fails at once as if its host could not be reached; readiness
   * comes a few seconds later, after the workflow has seen the watch fail.
   */
  public synchronized FakeCluster watchUnreachable() {
    watchUnreachable = true;
    return this;
  }

  /** "m1@3.5.30" for every version staged on a member's host, in order. */
  public synchronized List<String> staged() {
    return List.copyOf(staged);
  }

  /** Leadership cannot be handed over: a leader cannot be switched. */
  public synchronized FakeCluster moveLeaderFails() {
    moveLeaderFails = true;
    return this;
  }

  /**
   * Installing a version on a member fails when the predicate says so (after the member was
   * stopped).
   */
  public synchronized FakeCluster installFails(BiPredicate<String, String> memberAndVersion) {
    installFails = memberAndVersion;
    return this;
  }

  /**
   * Once {@code member} is installed on {@code version}, the cluster version is {@code
   * clusterVersion} (it moved while the upgrade was being undone).
   */
  public synchronized FakeCluster clusterVersionOnceInstalled(
      String member, String version, String clusterVersion) {
    movesClusterVersion = List.of(member, version, clusterVersion);
    return this;
  }

  /** The host access check finds these problems. */
  public synchronized FakeCluster hostProblems(String... problems) {
    hostProblems = List.of(problems);
    return this;
  }

  /**
   * The cluster version stays this, whatever the members run (as when it moved ahead of a member
   * put back).
   */
  public synchronized FakeCluster clusterVersion(String version) {
    pinnedClusterVersion = version;
    return this;
  }

  /**
   * When {@code started} is started, {@code down} stops (another member failing during the
   * upgrade).
   */
  public synchronized FakeCluster whenStarted(String started, String down) {
    downWhenStarted = started;
    goesDown = down;
    return this;
  }

  /**
   * Runs {@code hook} once {@code member}'s restart has read the cluster, before the restart
   * returns (a signal sent while it runs).
   */
  public synchronized FakeCluster afterRestartOf(String member, Runnable hook) {
    afterRestart.put(member, hook);
    return this;
  }

  /** Someone put {@code member} on {@code version} by hand (it runs it, healthy). */
  public synchronized FakeCluster runsByHand(String member, String version) {
    members.get(member).installed = version;
    members.get(member).running = version;
    return this;
  }

  /** etcd's member list also holds these members, which the inventory does not name. */
  public synchronized FakeCluster listsBeyondInventory(EtcdMember... extra) {
    beyondInventory = List.of(extra);
    return this;
  }

  /** The v2 store holds {@code keys} keys, served by every member. */
  public synchronized FakeCluster v2Keys(long keys, long withTtl) {
    v2 = new V2Store(List.copyOf(members.keySet()), keys, withTtl, null, Map.of());
    return this;
  }

  /** etcd's authentication is on. */
  public synchronized FakeCluster authEnabled() {
    authEnabled = true;
    return this;
  }

  /** The keyspace checksum read after the change differs from the one read before. */
  /** Each discovery finds the revision {@code step} higher than the one before (writes go on). */
  public synchronized FakeCluster revisionGrowsBy(long step) {
    revisionStep = step;
    return this;
  }

  /** Every member's hashkv cannot be read. */
  public synchronized FakeCluster hashesFail() {
    hashesFail = true;
    return this;
  }

  /** The member's hashkv differs from the others' in every consistency check. */
  public synchronized FakeCluster hashDiffersOn(String member) {
    hashDiffersOn = member;
    return this;
  }

  /** How many times each member's keyspace was scanned by a hashkv. */
  public synchronized Map<String, Integer> hashScans() {
    return Map.copyOf(hashScans);
  }

  public synchronized FakeCluster keyspaceChanges() {
    keyspaceChanges = true;
    return this;
  }

  /** Member name to the version it runs ("" when stopped). */
  public synchronized Map<String, String> running() {
    Map<String, String> versions = new LinkedHashMap<>();
    members.forEach((n, m) -> versions.put(n, m.running));
    return versions;
  }

  @Override
  public synchronized ClusterState discover(ClusterRef cluster) {
    if (leader.isEmpty() || members.get(leader).running.isEmpty()) {
      leader =
          members.entrySet().stream()
              .filter(e -> !e.getValue().running.isEmpty())
              .map(Map.Entry::getKey)
              .findFirst()
              .orElse("");
    }
    long leaderId = leader.isEmpty() ? 0 : members.get(leader).id;
    List<MemberStatus> statuses = new ArrayList<>();
    members.forEach(
        (n, m) -> {
          boolean up = !m.running.isEmpty();
          statuses.add(
              new MemberStatus(
                  n,
                  m.id,
                  up,
                  up,
                  m.running,
                  false,
                  1024,
                  100,
                  100,
                  leaderId,
                  up ? List.of() : List.of("connection refused")));
        });
    String lowest =
        members.values().stream()
            .map(m -> m.running)
            .filter(v -> !v.isEmpty())
            .min(EtcdVersion.STRING_ORDER)
            .orElse("");
    String clusterVersion =
        !pinnedClusterVersion.isEmpty()
            ? pinnedClusterVersion
            : lowest.isEmpty() ? "" : lowest.substring(0, lowest.lastIndexOf('.')) + ".0";
    long now = revision;
    revision += revisionStep;
    return new ClusterState(
            name, statuses, leader, clusterVersion, List.copyOf(alarms), now, null, authEnabled, v2)
        .withBeyondInventory(beyondInventory);
  }

  @Override
  public synchronized ConsistencyReport checkConsistency(ClusterRef cluster) {
    return checkConsistencyAt(new ConsistencyRequest(cluster.cluster(), 0, List.of()));
  }

  @Override
  public synchronized ConsistencyReport checkConsistencyAt(ConsistencyRequest request) {
    // at a revision named, it is the keyspace's hashes there, read as keyspaceHashes reads them;
    // hashesFail spares a round of every member, which a preflight needs
    long hash = 42L;
    if (request.revision() > 0) {
      hashReads++;
      if (hashesFail && !request.members().isEmpty()) {
        throw ApplicationFailure.newNonRetryableFailure(
            "hashkv of member 'm1' at revision " + request.revision() + ": no answer",
            "Unreachable");
      }
      if (keyspaceChanges && hashReads > 1) hash = 43L;
    }
    long answer = hash;
    Map<String, Long> hashes = new LinkedHashMap<>();
    Map<String, Long> indexes = new LinkedHashMap<>();
    members
        .keySet()
        .forEach(
            n -> {
              indexes.put(n, 100L);
              boolean asked = request.members().isEmpty() || request.members().contains(n);
              if (!asked) return;
              hashScans.merge(n, 1, Integer::sum);
              hashes.put(n, n.equals(hashDiffersOn) ? answer + 1 : answer);
            });
    return new ConsistencyReport(
        request.revision() > 0 ? request.revision() : 10, hashes, indexes, true, 0);
  }

  @Override
  public synchronized KeyspaceDigest keyspaceDigest(KeyspaceDigestRequest request) {
    digestReads++;
    if (compactedBelow > 0 && request.revision() < compactedBelow) {
      throw ApplicationFailure.newNonRetryableFailure(
          "cannot read cluster 'c' at revision "
              + request.revision()
              + ": required revision has been compacted",
          "InvalidRequest");
    }
    return new KeyspaceDigest(
        request.revision() == 0 ? 10 : request.revision(),
        0,
        keyspaceChanges && digestReads > 1 ? "changed0" : "e3b0c442");
  }

  /** Revisions below {@code revision} cannot be read (a compaction passed them). */
  public synchronized FakeCluster compactedBelow(long revision) {
    compactedBelow = revision;
    return this;
  }

  @Override
  public synchronized KeyspaceHashes keyspaceHashes(KeyspaceDigestRequest request) {
    hashReads++;
    if (hashesFail) {
      throw ApplicationFailure.newNonRetryableFailure(
          "hashkv of member 'm2' at revision " + request.revision() + ": no answer", "Unreachable");
    }
    Map<String, Long> hashes = new LinkedHashMap<>();
    long hash = keyspaceChanges && hashReads > 1 ? 43L : 42L;
    members.keySet().forEach(n -> hashes.put(n, n.equals(hashDiffersOn) ? hash + 1 : hash));
    members.keySet().forEach(n -> hashScans.merge(n, 1, Integer::sum));
    return new KeyspaceHashes(request.revision(), 0, hashes);
  }

  @Override
  public synchronized void moveLeader(MoveLeaderRequest request) {
    if (moveLeaderFails) {
      throw ApplicationFailure.newNonRetryableFailure(
          "leader " + leader + " did not hand over to " + request.toMember(), "MoveLeaderFailed");
    }
    leader = request.toMember();
  }

  @Override
  public MemberStatus awaitMemberReady(AwaitMemberRequest request) {
    if ((request.member() + "@" + request.expectedVersion()).equals(exitsOnStart())
        || watchUnreachableNow()) {
      try {
        Thread.sleep(3000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    return awaitReady(request);
  }

  private synchronized String exitsOnStart() {
    return exitsOnStart;
  }

  private synchronized MemberStatus awaitReady(AwaitMemberRequest request) {
    Member m = members.get(request.member());
    if ((request.member() + "@" + request.expectedVersion()).equals(notReady)) {
      throw ApplicationFailure.newNonRetryableFailure(
          request.member() + " did not catch up with the leader within its timeout",
          "MemberNotReady");
    }
    if (!m.running.equals(request.expectedVersion())) {
      throw ApplicationFailure.newNonRetryableFailure(
          request.member() + " runs '" + m.running + "', not " + request.expectedVersion(),
          "MemberNotReady");
    }
    return discover(new ClusterRef(name)).member(request.member()).orElseThrow();
  }

  @Override
  public String awaitClusterVersion(AwaitClusterVersionRequest request) {
    return request.minorVersion() + ".0";
  }

  @Override
  public synchronized String installedVersion(MemberRef member) {
    return members.get(member.member()).installed;
  }

  @Override
  public synchronized void stopMember(MemberRef member) {
    members.get(member.member()).running = "";
  }

  @Override
  public synchronized void installVersion(InstallRequest request) {
    if (installFails.test(request.member(), request.version())) {
      throw ApplicationFailure.newNonRetryableFailure(
          "cannot install etcd " + request.version() + " on " + request.member(), "InstallFailed");
    }
    members.get(request.member()).installed = request.version();
    if (movesClusterVersion.size() == 3
        && movesClusterVersion.get(0).equals(request.member())
        && movesClusterVersion.get(1).equals(request.version())) {
      pinnedClusterVersion = movesClusterVersion.get(2);
    }
  }

  @Override
  public synchronized void startMember(MemberRef member) {
    Member m = members.get(member.member());
    m.running = m.installed;
    if (member.member().equals(downWhenStarted)) members.get(goesDown).running = "";
  }

  @Override
  public synchronized String stageVersion(InstallRequest request) {
    staged.add(request.member() + "@" + request.version());
    return "uploaded";
  }

  @Override
  public synchronized void launchMember(MemberRef member) {
    startMember(member);
    Member m = members.get(member.member());
    if ((member.member() + "@" + m.installed).equals(exitsOnStart)) m.running = "";
  }

  @Override
  public synchronized SwitchOutcome switchVersion(InstallRequest request) {
    MemberRef ref = new MemberRef(request.cluster(), request.member());
    stopMember(ref);
    List<String> changes =
        translateFlags(
            new TranslateFlagsRequest(
                request.cluster(), request.member(), request.version(), true));
    installVersion(request);
    launchMember(ref);
    return new SwitchOutcome(changes, List.of(), 0);
  }

  /**
   * The switch, then: a member whose etcd exits fails as the real watch fails it; otherwise it is
   * ready as {@link #awaitMemberReady} says (an unreachable watch only stops watching).
   */
  @Override
  public boolean awaitRestartSettled(MemberRef member) {
    return false; // a fake's restarts end within their call
  }

  @Override
  public RestartOutcome restartMember(RestartRequest request) {
    InstallRequest install =
        new InstallRequest(request.cluster(), request.member(), request.version());
    SwitchOutcome switched = switchVersion(install);
    if (!watchUnreachableNow() && !watchedStaysUp(request.member())) {
      throw ApplicationFailure.newNonRetryableFailure(
          "etcd of " + request.member() + " exited right after it was started",
          "MemberStartFailed");
    }
    readiness.awaitMemberReady(
        new AwaitMemberRequest(
            request.cluster(), request.member(), request.version(), request.timeoutSeconds()));
    ClusterState after = discover(new ClusterRef(request.cluster()));
    Runnable hook;
    synchronized (this) {
      hook = afterRestart.remove(request.member());
    }
    if (hook != null) hook.run();
    return new RestartOutcome(switched.flagChanges(), List.of("ready"), 5, true, after);
  }

  /**
   * Fails at once when the member's etcd exited; else watches (sleeps) a moment, like a real one.
   */
  @Override
  public void watchMember(WatchRequest request) {
    if (watchUnreachableNow()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "cannot reach the host of " + request.member(), "HostUnreachable");
    }
    if (!watchedStaysUp(request.member())) {
      throw ApplicationFailure.newNonRetryableFailure(
          "etcd of " + request.member() + " exited right after it was started",
          "MemberStartFailed");
    }
    try {
      Thread.sleep(300);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private synchronized boolean watchUnreachableNow() {
    return watchUnreachable;
  }

  private synchronized boolean watchedStaysUp(String member) {
    return !members.get(member).running.isEmpty();
  }

  @Override
  public String logTail(LogTailRequest request) {
    return "";
  }

  /** An alarm the cluster reports ("NOSPACE on m1") until {@link #clearAlarms()}. */
  public synchronized FakeCluster alarm(String alarm) {
    alarms.add(alarm);
    return this;
  }

  /** The raised alarms, cleared: what were they. */
  public synchronized List<String> clearAlarms() {
    List<String> cleared = List.copyOf(alarms);
    alarms.clear();
    return cleared;
  }

  /** A running member was started with these arguments. */
  public synchronized FakeCluster startedWith(String member, String... args) {
    startArgs.put(member, List.of(args));
    return this;
  }

  @Override
  public synchronized MemberFlags memberFlags(MemberRef member) {
    Member m = members.get(member.member());
    if (m == null || m.running.isEmpty()) return MemberFlags.notRunning(member.member());
    return new MemberFlags(
        member.member(), startArgs.getOrDefault(member.member(), List.of()), Map.of(), true);
  }

  /** The member's host shows these client connections (by default: none). */
  public synchronized FakeCluster connected(ClientConnections seen) {
    connections.put(seen.member(), seen);
    return this;
  }

  @Override
  public synchronized ClientConnections clientConnections(MemberRef member) {
    return connections.getOrDefault(
        member.member(),
        new ClientConnections(member.member(), List.of(), List.of(), List.of(), null));
  }

  /** Flags of members started with {@link #startedWith}, translated for a version, in memory. */
  @Override
  public synchronized List<String> translateFlags(TranslateFlagsRequest request) {
    List<String> args = startArgs.getOrDefault(request.member(), List.of());
    var to =
        FlagTranslations.forTarget(
            args.stream().map(FlagTranslations.Flag::parse).toList(), request.version());
    if (!to.refused().isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure(
          request.member() + ": " + to.refused(), "FlagsNotTranslatable");
    }
    List<String> translated = to.flags().stream().map(FlagTranslations.Flag::asArgument).toList();
    List<String> changes = to.changes();
    if (request.apply()) startArgs.put(request.member(), List.copyOf(translated));
    return changes;
  }

  /** Every host can be used, unless {@link #hostProblems} says otherwise. */
  @Override
  public synchronized List<String> checkAccess(HostAccessRequest request) {
    return hostProblems;
  }

  @Override
  public List<String> availableVersions(ClusterRef cluster) {
    return available;
  }

  /** A binary source's offer: no image repository. */
  @Override
  public VersionOffer offer(ClusterRef cluster) {
    return VersionOffer.fromReleaseStore(available);
  }

  /** The flags the fakes start members with, as a target's --help would list them. */
  @Override
  public List<String> flagsOf(String version) {
    return List.of(
        "--name",
        "--data-dir",
        "--log-level",
        "--log-outputs",
        "--cert-file",
        "--key-file",
        "--trusted-ca-file",
        "--peer-trusted-ca-file",
        "--enable-v2");
  }

  @Override
  public synchronized BackupRecord takeVerifiedBackup(BackupRequest request) {
    return BackupRecord.builder()
        .id(request.backupId())
        .cluster(name)
        .member("m1")
        .etcdVersion("3.4.23")
        .revision(revision)
        .hash(42)
        .keyCount(0)
        .sizeBytes(1024)
        .sha256("sha")
        .path("/backups/" + request.backupId())
        .takenAt("2026-01-01T00:00:00Z")
        .encrypted(true)
        .keyId("k")
        .liveKeys(0)
        .build();
  }

  @Override
  public String copyOffsite(BackupRequest request) {
    return "";
  }

  @Override
  public int scheduleIntervalMinutes(ClusterRef cluster) {
    return 1440;
  }
}
