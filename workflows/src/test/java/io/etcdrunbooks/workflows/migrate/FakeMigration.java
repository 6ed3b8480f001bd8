package io.etcdrunbooks.workflows.migrate;

import io.etcdrunbooks.workflows.activities.MigrationActivities;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.testing.UnsupportedApiServerActivities;
import io.etcdrunbooks.workflows.testing.UnsupportedInventoryActivities;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a migration needs besides a cluster ({@link io.etcdrunbooks.workflows.testing.FakeCluster}
 * has the members): the inventory, kube-apiservers with a storage backend that are stopped and
 * started, and v2 and v3 stores that members' data dirs are migrated between. Faults are injected
 * by member or host.
 */
final class FakeMigration
    implements UnsupportedInventoryActivities, UnsupportedApiServerActivities, MigrationActivities {

  private final List<String> members;
  private final List<String> controlPlane;
  private final Set<String> stopped = new LinkedHashSet<>();
  private final Map<String, String> backends = new LinkedHashMap<>();
  private final List<String> migrated = new ArrayList<>();
  private final Map<String, String> copiedFrom = new LinkedHashMap<>();
  private final List<String> putBack = new ArrayList<>();
  private long v2Keys = 1200;
  private long v3Keys;
  private String migrateFails = "";
  private String unhealthyOnV3 = "";
  private List<String> comparisonProblems = List.of();
  private boolean cleared;
  private final Map<String, String> etcdPrefixes = new LinkedHashMap<>();
  private final List<MigrationScope> scopes = new ArrayList<>();

  FakeMigration(List<String> members, List<String> controlPlane) {
    this.members = List.copyOf(members);
    this.controlPlane = List.copyOf(controlPlane);
    controlPlane.forEach(h -> backends.put(h, "etcd2"));
  }

  synchronized FakeMigration v3Holds(long keys) {
    v3Keys = keys;
    return this;
  }

  synchronized FakeMigration v2Holds(long keys) {
    v2Keys = keys;
    return this;
  }

  synchronized FakeMigration backend(String host, String backend) {
    backends.put(host, backend);
    return this;
  }

  synchronized FakeMigration etcdPrefix(String host, String flag) {
    etcdPrefixes.put(host, flag);
    return this;
  }

  /** The scopes the migration activities were called with, in order. */
  synchronized List<MigrationScope> scopes() {
    return List.copyOf(scopes);
  }

  synchronized FakeMigration migrateFails(String member) {
    migrateFails = member;
    return this;
  }

  /** The host's kube-apiserver never becomes healthy while it reads etcd3. */
  synchronized FakeMigration unhealthyOnV3(String host) {
    unhealthyOnV3 = host;
    return this;
  }

  synchronized FakeMigration comparisonFinds(String... problems) {
    comparisonProblems = List.of(problems);
    return this;
  }

  synchronized List<String> stoppedApiServers() {
    return List.copyOf(stopped);
  }

  synchronized Map<String, String> backends() {
    return Map.copyOf(backends);
  }

  synchronized List<String> migrated() {
    return List.copyOf(migrated);
  }

  synchronized List<String> putBack() {
    return List.copyOf(putBack);
  }

  synchronized boolean cleared() {
    return cleared;
  }

  @Override
  public List<MemberPlacement> members(ClusterRef ref) {
    return members.stream()
        .map(
            m ->
                new MemberPlacement(
                    m,
                    m + ".example",
                    22,
                    "http://" + m + ":2380",
                    "http://" + m + ":2379",
                    "/var/lib/etcd-" + m,
                    "/opt/etcd",
                    "/srv/" + m))
        .toList();
  }

  @Override
  public void checkWritable(ClusterRef ref) {}

  @Override
  public List<String> controlPlaneHosts(ClusterRef ref) {
    return controlPlane;
  }

  @Override
  public synchronized String storageBackend(ControlPlaneRef host) {
    return backends.get(host.host());
  }

  @Override
  public synchronized String etcdPrefix(ControlPlaneRef host) {
    return etcdPrefixes.getOrDefault(host.host(), "");
  }

  @Override
  public synchronized boolean setStorageBackend(SetStorageBackendRequest request) {
    return !request.backend().equals(backends.put(request.host(), request.backend()));
  }

  @Override
  public synchronized boolean stopApiServer(ControlPlaneRef host) {
    return stopped.add(host.host());
  }

  @Override
  public synchronized boolean startApiServer(ControlPlaneRef host) {
    return stopped.remove(host.host());
  }

  @Override
  public void awaitStopped(AwaitApiServerRequest request) {}

  @Override
  public synchronized void awaitHealthy(AwaitApiServerRequest request) {
    if (stopped.contains(request.host())
        || request.host().equals(unhealthyOnV3) && "etcd3".equals(backends.get(request.host()))) {
      throw ApplicationFailure.newNonRetryableFailure(
          "kube-apiserver on " + request.host() + " is not healthy", "ApiServerUnhealthy");
    }
  }

  @Override
  public synchronized StoreSurvey survey(MigrationScope scope) {
    scopes.add(scope);
    return new StoreSurvey(
        members,
        v2Keys,
        200,
        Map.of("/registry/pods", v2Keys - 200L, "/registry/events", 200L),
        v3Keys,
        v3Keys + 1,
        Map.of("/coreos.com", 3L, "/calico", 5L));
  }

  @Override
  public String copyDataDir(MemberMigrationRequest request) {
    return "/var/lib/etcd-" + request.member() + ".before-migrate-" + request.migrationId();
  }

  @Override
  public synchronized void migrateMember(MemberMigrationRequest request) {
    if (request.member().equals(migrateFails)) {
      throw ApplicationFailure.newNonRetryableFailure(
          "etcdctl migrate failed on " + request.member(), "HostCommandFailed");
    }
    migrated.add(request.member());
  }

  @Override
  public synchronized boolean copyV3Store(V3StoreCopyRequest request) {
    if (request.member().equals(migrateFails)) {
      throw ApplicationFailure.newNonRetryableFailure(
          "cannot put the v3 store of " + request.from() + " in place on " + request.member(),
          "HostCommandFailed");
    }
    if (!migrated.contains(request.from())) {
      throw ApplicationFailure.newNonRetryableFailure(
          request.from() + " is not migrated yet", "MigrationOutOfOrder");
    }
    copiedFrom.put(request.member(), request.from());
    return true;
  }

  /** member -> the member whose v3 store it was given. */
  synchronized Map<String, String> copiedFrom() {
    return Map.copyOf(copiedFrom);
  }

  @Override
  public synchronized boolean putDataDirBack(MemberMigrationRequest request) {
    putBack.add(request.member());
    return true;
  }

  @Override
  public synchronized LeaseReport attachLeases(MigrationScope scope) {
    scopes.add(scope);
    return new LeaseReport(60, 200, 0, 0, 60, 3600, 8);
  }

  @Override
  public synchronized StoreComparison compare(MigrationScope scope) {
    scopes.add(scope);
    Map<String, Long> prefixes = Map.of("/registry/pods", v2Keys - 200L, "/registry/events", 200L);
    return new StoreComparison(v2Keys, v2Keys, prefixes, prefixes, 200, comparisonProblems, 200);
  }

  @Override
  public synchronized long clearV2(MigrationScope scope) {
    scopes.add(scope);
    cleared = true;
    return v2Keys;
  }
}
