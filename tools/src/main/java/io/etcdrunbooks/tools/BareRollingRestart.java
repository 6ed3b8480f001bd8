package io.etcdrunbooks.tools;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.maintenance.StatusResponse;
import io.etcdrunbooks.activities.host.BinaryInstaller;
import io.etcdrunbooks.activities.host.MemberHost;
import io.etcdrunbooks.activities.host.ServiceManager;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The leanest rolling restart a careful SRE would script by hand, the bench's bare column: the new
 * binaries already on every host, followers first, leadership moved off the leader before it stops,
 * and for each member stop, point at the new binaries, start, wait until {@code /health} says true.
 * No backup, no checks. It uses the runbooks' own SSH and service-manager code, so the difference
 * the bench shows is the runbook's, not a faster transport's.
 */
final class BareRollingRestart {

  private final ClusterSpec cluster;
  private final ServiceManager service;
  private final BinaryInstaller installer;
  private final Map<String, String> steps = new LinkedHashMap<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

  BareRollingRestart(ClusterSpec cluster, SshConnector ssh) {
    this.cluster = cluster;
    this.service = ServiceManager.of(cluster.service(), ssh);
    this.installer = new BinaryInstaller(ssh);
  }

  /** Puts the version's binaries on every host beforehand (the column's precondition). */
  void stage(String version, Path binDir) {
    for (MemberSpec member : cluster.members())
      installer.stage(MemberHost.of(cluster, member), version, binDir);
  }

  /** Restarts every member on the version; returns each member's down time in milliseconds. */
  Map<String, Long> run(String version, Path binDir) throws Exception {
    Map<String, Long> down = new LinkedHashMap<>();
    for (String name : followersThenLeader()) {
      MemberSpec member = member(name);
      MemberHost host = MemberHost.of(cluster, member);
      if (name.equals(leader())) moveLeaderAway(name, down.keySet());
      long stoppedAt = System.nanoTime();
      service.stop(host);
      long stopped = System.nanoTime();
      installer.install(host, version, binDir);
      long selected = System.nanoTime();
      service.launch(host);
      long launched = System.nanoTime();
      awaitHealthy(member.clientUrl());
      long healthy = System.nanoTime();
      down.put(name, TimeUnit.NANOSECONDS.toMillis(healthy - stoppedAt));
      steps.put(
          name,
          "stop %d ms, select %d ms, start %d ms, healthy %d ms"
              .formatted(
                  millis(stopped - stoppedAt),
                  millis(selected - stopped),
                  millis(launched - selected),
                  millis(healthy - launched)));
    }
    return down;
  }

  /** Each member's steps with their times, from the last {@link #run}. */
  Map<String, String> steps() {
    return Map.copyOf(steps);
  }

  private static long millis(long nanos) {
    return TimeUnit.NANOSECONDS.toMillis(nanos);
  }

  private List<String> followersThenLeader() throws Exception {
    String leader = leader();
    List<String> order = new ArrayList<>();
    for (MemberSpec m : cluster.members()) if (!m.name().equals(leader)) order.add(m.name());
    order.add(leader);
    return order;
  }

  /** etcdctl endpoint status, in effect: the member whose id is the leader id it reports. */
  private String leader() throws Exception {
    for (MemberSpec m : cluster.members()) {
      try (Client client = Client.builder().endpoints(m.clientUrl()).build()) {
        StatusResponse status =
            client.getMaintenanceClient().statusMember(m.clientUrl()).get(5, TimeUnit.SECONDS);
        if (status.getLeader() == status.getHeader().getMemberId()) return m.name();
      } catch (Exception unreachable) {
        // try the next member
      }
    }
    throw new IllegalStateException("no member of " + cluster.name() + " leads");
  }

  /** etcdctl move-leader, sent to the leader, to a member already on the new version. */
  private void moveLeaderAway(String leader, java.util.Set<String> upgraded) throws Exception {
    String to = upgraded.isEmpty() ? null : upgraded.iterator().next();
    if (to == null) return;
    try (Client target = Client.builder().endpoints(member(to).clientUrl()).build();
        Client current = Client.builder().endpoints(member(leader).clientUrl()).build()) {
      long targetId =
          target
              .getMaintenanceClient()
              .statusMember(member(to).clientUrl())
              .get(5, TimeUnit.SECONDS)
              .getHeader()
              .getMemberId();
      current.getMaintenanceClient().moveLeader(targetId).get(10, TimeUnit.SECONDS);
    }
  }

  private MemberSpec member(String name) {
    return cluster.members().stream().filter(m -> m.name().equals(name)).findFirst().orElseThrow();
  }

  private void awaitHealthy(String clientUrl) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
    while (System.nanoTime() < deadline) {
      try {
        HttpResponse<String> health =
            http.send(
                HttpRequest.newBuilder(URI.create(clientUrl + "/health"))
                    .timeout(Duration.ofSeconds(1))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (health.statusCode() == 200 && health.body().contains("\"true\"")) return;
      } catch (java.io.IOException notYet) {
        // the member is still starting
      }
      TimeUnit.MILLISECONDS.sleep(50);
    }
    throw new IllegalStateException(clientUrl + " did not become healthy within 2 minutes");
  }
}
