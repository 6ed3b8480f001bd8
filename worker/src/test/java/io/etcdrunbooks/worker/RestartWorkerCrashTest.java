package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.testkit.WorkerKilledMidRestart;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A worker JVM killed with SIGKILL the moment the first member it restarts is down (stopped, not
 * yet started): the member comes back on its host, without waiting for the next worker to take the
 * step over. Every member's down time is measured from outside the same way (its etcd process gone
 * until it answers healthy on the new version); the other two, restarted by the second worker, are
 * the normal restarts it is held against.
 *
 * <p>Without the restart on the host, the member would stay down until the next worker retried the
 * step, which Temporal does only after the restart activity's heartbeat timeout (5 s here, {@link
 * io.etcdrunbooks.testkit.WorkerProcess#KILLED_WORKER_HEARTBEAT_TIMEOUT_SECONDS}; 20 s as shipped)
 * and its retry's 1 s backoff, once the second worker JVM has started. The bound is twice the
 * slowest normal restart plus {@link #LOADED_MACHINE_SLACK_MILLIS}: on a loaded CI machine a few
 * hundred milliseconds of scheduling noise is more than a normal restart takes (CI: 529 ms against
 * 213 ms), and the slack still leaves the bound below that retry.
 */
@RealEtcd
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class RestartWorkerCrashTest {

  private static final String TO = "3.5.16";
  private static final long LOADED_MACHINE_SLACK_MILLIS = 2_000;

  @TempDir Path dir;

  @Test
  void aMemberWhoseWorkerDiesWhileItIsStoppedIsBackLongBeforeTheRetryAndRestartedOnce()
      throws Exception {
    try (Sandbox sandbox =
        Sandbox.create(
            new SandboxSpec(dir.resolve("sandbox"), "sandbox", 3, "3.4.23", Map.of()),
            SandboxRunbooks.releases())) {
      WorkerKilledMidRestart.Measured measured = WorkerKilledMidRestart.run(sandbox, TO, dir);
      String member = measured.member();
      System.out.printf(
          "worker killed while %s was stopped; down times: %s%n", member, measured.restarts());

      assertThat(measured.result().memberVersions())
          .containsOnly(Map.entry("m1", TO), Map.entry("m2", TO), Map.entry("m3", TO));
      assertThat(measured.restarts()).containsOnlyKeys("m1", "m2", "m3");
      assertThat(measured.killedMillis())
          .as(
              "down time of %s, whose worker was killed while it was stopped, against the"
                  + " slowest normal restart of the same upgrade (%s); worker-2 log:%n%s",
              member, measured.restarts(), WorkerCrashScenario.logTail(dir.resolve("worker-2.log")))
          .isLessThanOrEqualTo(2 * measured.normalMillis() + LOADED_MACHINE_SLACK_MILLIS);
      // and as the runbook reports it: the retry that took the host's outcome counts the member's
      // down time until its start on the host, not until the retry came
      Map<String, Long> reported = new java.util.HashMap<>();
      measured.result().memberDownTimes().forEach(d -> reported.put(d.member(), d.millis()));
      long reportedNormal =
          reported.entrySet().stream()
              .filter(e -> !e.getKey().equals(member))
              .mapToLong(Map.Entry::getValue)
              .max()
              .orElseThrow();
      assertThat(reported.get(member))
          .as(
              "down time of %s as the runbook reports it, against the others' (%s)",
              member, reported)
          .isLessThanOrEqualTo(2 * reportedNormal + LOADED_MACHINE_SLACK_MILLIS);
      // nothing done twice: one start on each version, and the process that came back is the one
      // that runs now
      assertThat(sandbox.pidOf(member))
          .as("%s was not restarted again by the retry", member)
          .isEqualTo(measured.restarts().get(member).pidAfter());
      for (MemberSpec m : sandbox.cluster().members()) {
        String log = Files.readString(Path.of(m.serviceDir(), "etcd.log"));
        assertThat(WorkerCrashScenario.count(log, "etcd Version: 3.4.23"))
            .as("starts of %s on 3.4.23", m.name())
            .isEqualTo(1);
        assertThat(WorkerCrashScenario.count(log, "\"etcd-version\":\"" + TO + "\""))
            .as("starts of %s on %s", m.name(), TO)
            .isEqualTo(1);
      }
      assertThat(measured.result().restartedMembers().get("3.4.23 -> " + TO))
          .containsExactlyInAnyOrder("m1", "m2", "m3");
    }
  }
}
