package io.etcdrunbooks.activities.etcd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcd.jetcd.ByteSequence;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.EtcdReleases;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.workflows.model.MemberRef;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A defragmentation the client stopped waiting for still runs in etcd: the retry waits for it
 * instead of queueing a second one behind it, counted by etcd's own defragmentation histogram.
 */
@RealEtcd
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class DefragmentationRetryTest {

  private static final String DEFRAGS = "etcd_disk_backend_defrag_duration_seconds_count";

  @TempDir Path dir;

  @Test
  void aRetryAfterTheClientGaveUpWaitsForTheDefragmentationStillRunning() throws Exception {
    try (Sandbox sandbox =
            Sandbox.create(new SandboxSpec(dir, "c1", 1, "3.5.30"), EtcdReleases.store());
        EtcdClients clients = new EtcdClients(sandbox.cluster())) {
      for (int i = 0; i < 40; i++) {
        clients
            .cluster()
            .getKVClient()
            .put(bytes("/registry/k-" + (i % 20)), bytes("x".repeat(64 * 1024)))
            .get(10, TimeUnit.SECONDS);
      }
      MemberSpec m1 = sandbox.cluster().member("m1");
      ClusterVersionReader metrics = new ClusterVersionReader(sandbox.cluster());
      double before = metrics.metric(m1.clientUrl(), DEFRAGS).orElseThrow();
      MemberRef ref = new MemberRef("c1", "m1");

      // the first attempt stops waiting at once, as one does after 25 minutes on a huge database
      assertThatThrownBy(
              () ->
                  new MaintenanceActivitiesImpl(
                          ClusterTargets.etcdOnly(sandbox::inventory), Duration.ZERO)
                      .defragment(ref))
          .hasMessageContaining("still runs in etcd, and the retry waits for it");
      new MaintenanceActivitiesImpl(ClusterTargets.etcdOnly(sandbox::inventory)).defragment(ref);

      assertThat(metrics.metric(m1.clientUrl(), DEFRAGS).orElseThrow())
          .as("defragmentations etcd ran")
          .isEqualTo(before + 1);
      assertThat(
              metrics
                  .metric(m1.clientUrl(), MaintenanceActivitiesImpl.DEFRAG_IN_FLIGHT)
                  .orElseThrow())
          .isZero();
    }
  }

  private static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }
}
