package io.etcdrunbooks.tools;

import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.testkit.WorkerKilledMidRestart;
import java.nio.file.Path;
import java.util.Map;

/** The bench's line for {@link WorkerKilledMidRestart}. */
final class KilledWorkerBench {

  private KilledWorkerBench() {}

  /** Aim: the killed worker's member down no longer than twice the slowest normal restart. */
  static final double TARGET = 2.0;

  /**
   * The bench's line: a 3-member sandbox of {@code from} upgraded to {@code to}, its first worker
   * killed mid-restart; true when the member was back within {@link #TARGET}.
   */
  static boolean run(Path dir, ReleaseStore releases, String from, String to) throws Exception {
    System.out.printf(
        "== bench: a worker killed (SIGKILL) while the member it restarts is stopped, 3 members, %s"
            + " -> %s%n",
        from, to);
    WorkerKilledMidRestart.Measured measured;
    try (Sandbox sandbox =
        Sandbox.create(
            new SandboxSpec(dir.resolve("killed-worker"), "killed", 3, from, Map.of()), releases)) {
      measured = WorkerKilledMidRestart.run(sandbox, to, dir.resolve("killed-worker"));
    }
    Bench.discard(dir.resolve("killed-worker"));
    double ratio = (double) measured.killedMillis() / Math.max(1, measured.normalMillis());
    boolean ok = ratio <= TARGET;
    System.out.printf(
        "   down time of %s, whose worker was killed mid-restart: %d ms; slowest normal restart of"
            + " the same upgrade %d ms (all: %s) = %.2fx (target <= %.1fx) -> %s%n",
        measured.member(),
        measured.killedMillis(),
        measured.normalMillis(),
        measured.restarts().entrySet().stream()
            .sorted(Map.Entry.comparingByKey())
            .map(e -> e.getKey() + "=" + e.getValue().millis())
            .toList(),
        ratio,
        TARGET,
        ok ? "OK" : "MISSED");
    return ok;
  }
}
