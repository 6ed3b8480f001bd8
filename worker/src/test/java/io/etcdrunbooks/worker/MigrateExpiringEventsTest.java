package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.ControlPlaneStandIns;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.migrate.MigrateRequest;
import io.etcdrunbooks.workflows.migrate.MigrateResult;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A v2 cluster whose events run out while it is migrated: events of 5 s written until the
 * kube-apiserver is stopped, and flannel renewing 5 s subnet leases in v2 all along. The leader's
 * SYNCs expire them while the members stop one by one, so each member's WAL ends elsewhere; every
 * member must still end with one v3 store, the keys without a TTL exactly as in v2, the expired
 * events expired.
 */
@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class MigrateExpiringEventsTest {

  private static final long EVENT_TTL = 5;

  @TempDir Path dir;

  @Test
  void eventsRunningOutDuringTheMigrationAreExpiredAndEveryMemberEndsWithTheSameV3Store()
      throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.3.25", Map.of());
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(runbooks.sandbox, "etcd2");
        ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
      V2Writer v2 = new V2Writer(runbooks.cluster().member("m1").clientUrl());
      Map<String, String> objects = v2.kubernetes15(200, 0, 0);
      MigrateResult result;
      Map<String, String> events;
      try (FlannelRenewals flannel = new FlannelRenewals(runbooks);
          EventsWhileApiServerRuns apiServer =
              new EventsWhileApiServerRuns(v2, apiServers.standIn("cp-m1").healthUrl())) {
        result =
            runbooks
                .migrateStub()
                .migrate(
                    MigrateRequest.of(
                        "sandbox",
                        RunbookOptions.defaults()
                            .withMemberTimeoutSeconds(60)
                            .withApiServerTimeoutSeconds(30)));

        assertThat(flannel.renewals()).as("flannel wrote v2 during the migration").isPositive();
        events = apiServer.events();
      }

      assertThat(events).as("events written until the apiserver stopped").isNotEmpty();
      assertThat(result.leases().expiredDeleted())
          .as("events the first member stopped with, which v2 expired before LEASES")
          .isPositive();
      assertThat(result.apiServersSwitched()).containsExactlyElementsOf(apiServers.hosts());
      assertThat(probe.hashKvByMember(0).values().stream().distinct())
          .as("one v3 store on every member")
          .hasSize(1);
      Map<String, ClusterProbe.StoredKey> inV3 = probe.dump(0);
      for (Map.Entry<String, String> object : objects.entrySet()) {
        assertThat(inV3.get(object.getKey()))
            .as("%s in v3", object.getKey())
            .isNotNull()
            .extracting(ClusterProbe.StoredKey::value)
            .isEqualTo(object.getValue());
      }
      for (String key : inV3.keySet()) {
        assertThat(objects.containsKey(key) || events.containsKey(key))
            .as("%s is one of the keys written under /registry", key)
            .isTrue();
        if (events.containsKey(key)) {
          assertThat(inV3.get(key).value()).isEqualTo(events.get(key));
        }
      }
      ClusterAssertions.assertEveryKeyInV3(probe, onlyStillIn(inV3, objects, events));
    }
  }

  /** The objects, and the events v3 still holds (the rest expired). */
  private static Map<String, String> onlyStillIn(
      Map<String, ClusterProbe.StoredKey> inV3,
      Map<String, String> objects,
      Map<String, String> events) {
    Map<String, String> expected = new LinkedHashMap<>(objects);
    events.forEach(
        (key, value) -> {
          if (inV3.containsKey(key)) expected.put(key, value);
        });
    return expected;
  }

  /**
   * kube-apiserver writing events of {@value #EVENT_TTL} s, every 100 ms while it answers healthy,
   * and no more once the runbook has stopped it: they run out in the seconds the members are
   * stopped one by one.
   */
  private static final class EventsWhileApiServerRuns implements AutoCloseable {

    private final ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor();
    private final Map<String, String> written = new ConcurrentHashMap<>();
    private volatile boolean stopped;

    EventsWhileApiServerRuns(V2Writer v2, String healthUrl) {
      AtomicInteger n = new AtomicInteger();
      writer.scheduleAtFixedRate(
          () -> {
            if (stopped) return;
            if (!healthy(healthUrl)) {
              // gone once it had answered: stopped by the runbook, and never writing v2 again
              stopped = !written.isEmpty();
              return;
            }
            int i = n.getAndIncrement();
            String key = "/registry/events/default/web-" + i + ".e" + i;
            String value = "{\"kind\":\"Event\",\"reason\":\"BackOff\",\"n\":" + i + "}";
            if (v2.tryPut(key, value, EVENT_TTL)) written.put(key, value);
          },
          0,
          100,
          TimeUnit.MILLISECONDS);
    }

    private static boolean healthy(String healthUrl) {
      try {
        return HttpProbe.status(healthUrl) == 200;
      } catch (Exception e) {
        return false;
      }
    }

    Map<String, String> events() {
      return Map.copyOf(written);
    }

    @Override
    public void close() {
      writer.shutdownNow();
      try {
        writer.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * flannel's daemons renewing their subnet leases (a TTL of 5 s here) through whichever member
   * answers, every 200 ms: v2 writes and SYNCs throughout the migration.
   */
  private static final class FlannelRenewals implements AutoCloseable {

    private final ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor();
    private final AtomicInteger written = new AtomicInteger();

    FlannelRenewals(SandboxRunbooks runbooks) {
      List<V2Writer> members =
          runbooks.cluster().members().stream()
              .map(MemberSpec::clientUrl)
              .map(V2Writer::new)
              .toList();
      AtomicInteger round = new AtomicInteger();
      writer.scheduleAtFixedRate(
          () -> {
            int n = round.getAndIncrement();
            String key = "/coreos.com/network/subnets/10.244." + (n % 20) + ".0-24";
            for (V2Writer member : members) {
              if (member.tryPut(key, "{\"PublicIP\":\"10.0.0." + (n % 20) + "\"}", 5)) {
                written.incrementAndGet();
                return;
              }
            }
          },
          0,
          200,
          TimeUnit.MILLISECONDS);
    }

    int renewals() {
      return written.get();
    }

    @Override
    public void close() {
      writer.shutdownNow();
      try {
        writer.awaitTermination(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
