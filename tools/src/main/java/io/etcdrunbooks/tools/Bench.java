package io.etcdrunbooks.tools;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcdrunbooks.activities.release.LocalDirReleaseStore;
import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.workflows.common.MemberDownTime;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import io.etcdrunbooks.workflows.upgrade.VersionLadder;
import io.micrometer.core.instrument.MeterRegistry;
import io.micronaut.context.ApplicationContext;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code bench} ({@link #USAGE}): for each case (members, and optionally a keyspace filled to some
 * MiB first), two fresh sandboxes of the same version, the new binaries already on every host of
 * both. On the first, {@link BareRollingRestart}: the minimal rolling restart a careful SRE would
 * script. On the second, the UpgradeCluster runbook on the embedded Temporal, doing the whole job
 * (discovery, checks, verified backup, staging, leader hand-over, readiness, postflight). A client
 * writes during each. Prints each member's down time in both columns, the whole times, the ratios
 * against their targets, the longest write stall and lost writes, and where the runbook's time
 * went; exits 1 when a target is missed.
 */
final class Bench {

  /** The runbook's worst member down time over the bare script's worst. */
  static final double DOWN_TIME_TARGET = 1.5;

  /** The whole runbook (backup and checks included) over the whole bare script. */
  static final double TOTAL_TARGET = 3.0;

  static final long STALL_TARGET_MILLIS = 200;

  private static final int FILL_VALUE_BYTES = 512 * 1024;

  private Bench() {}

  /** One case: a cluster of {@code members}, its keyspace filled with {@code fillMiB} first. */
  record Case(int members, int fillMiB) {
    static Case parse(String text) {
      String[] parts = text.split("x", 2);
      return new Case(
          Integer.parseInt(parts[0].strip()), parts.length > 1 ? Integer.parseInt(parts[1]) : 0);
    }

    String label() {
      return members + " members" + (fillMiB > 0 ? ", " + fillMiB + " MiB keyspace" : "");
    }
  }

  /** One column's measurements. */
  record Column(long totalMillis, Map<String, Long> downMillis, WriteProbe.Report writes) {
    long worstDown() {
      return downMillis.values().stream().mapToLong(Long::longValue).max().orElse(0);
    }
  }

  static final String USAGE =
      "bench [--from=3.4.23] [--to=3.5.16] [--cases=3,5,3x1024] [--log-switches] [--fleet=10]"
          + " [--skip-fleet] [--replace-version=3.5.30] [--skip-replace] [--skip-killed-worker]"
          + " [--dir=DIR]\n"
          + "  the upgrade runbook against a bare stop/install/start/health script, then the time"
          + " from a member-down alert to a healthy cluster against the bare etcdctl steps, and the"
          + " down time of a member whose worker is killed mid-restart\n"
          + "  --dir keeps the sandboxes there; without it they go to a temporary directory that is"
          + " deleted case by case (a 1 GiB case takes about 8 GiB of disk while it runs)";

  static final List<String> OPTIONS =
      List.of(
          "from",
          "to",
          "cases",
          "log-switches",
          "fleet",
          "skip-fleet",
          "replace-version",
          "skip-replace",
          "skip-killed-worker",
          "dir");

  /** Its options are checked by {@link io.etcdrunbooks.worker.Subcommand}. */
  static int run(Map<String, String> options) throws Exception {
    keep = options.containsKey("dir");
    Path dir =
        Path.of(
            options.getOrDefault(
                "dir", Files.createTempDirectory("etcd-runbooks-bench").toString()));
    try {
      return run(options, dir);
    } finally {
      discard(dir);
    }
  }

  /** --dir: the sandboxes stay where the user put them. */
  private static boolean keep;

  /** Deletes a sandbox's directory once it is closed, unless the user chose where they go. */
  static void discard(Path dir) throws IOException {
    if (keep || !Files.exists(dir)) return;
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
    }
  }

  private static int run(Map<String, String> options, Path dir) throws Exception {
    String from = options.getOrDefault("from", "3.4.23");
    String to = options.getOrDefault("to", "3.5.16");
    List<Case> cases =
        Arrays.stream(options.getOrDefault("cases", "3,5,3x1024").split(","))
            .filter(c -> !c.isBlank())
            .map(Case::parse)
            .toList();
    ReleaseStore releases = new LocalDirReleaseStore(LocalDirReleaseStore.defaultDir());
    Demo.quietLogs();
    verbose = options.containsKey("log-switches");
    if (verbose) {
      // each restart's steps and each backup's, with their times
      for (Class<?> logging :
          List.of(
              io.etcdrunbooks.activities.host.HostActivitiesImpl.class,
              io.etcdrunbooks.activities.backup.BackupActivitiesImpl.class)) {
        if (org.slf4j.LoggerFactory.getLogger(logging)
            instanceof ch.qos.logback.classic.Logger logger) {
          logger.setLevel(ch.qos.logback.classic.Level.INFO);
        }
      }
    }
    boolean ok = true;
    for (Case c : cases) ok &= runCase(c, from, to, dir, releases);
    if (!options.containsKey("skip-killed-worker"))
      ok &= KilledWorkerBench.run(dir, releases, from, to);
    if (!options.containsKey("skip-fleet")) {
      ok &=
          FleetBench.run(
              dir.resolve("fleet"),
              releases,
              Integer.parseInt(options.getOrDefault("fleet", "10")),
              from,
              to);
    }
    boolean replaced =
        options.containsKey("skip-replace")
            || ReplaceBench.run(dir, releases, options.getOrDefault("replace-version", "3.5.30"));
    return ok && replaced ? 0 : 1;
  }

  /**
   * --log-switches: every restart's and backup's steps logged, and every step of the runbook
   * printed.
   */
  private static boolean verbose;

  private static boolean runCase(Case c, String from, String to, Path dir, ReleaseStore releases)
      throws Exception {
    String name = "bench" + c.members() + (c.fillMiB() > 0 ? "x" + c.fillMiB() : "");
    // the bare column climbs the runbook's ladder too (3.5.30 -> 3.5.35 -> 3.6.16: etcd asks for
    // 3.5.32 or later before 3.6), so that both restart every member as often
    List<String> ladder =
        VersionLadder.plan(EtcdVersion.parse(from), EtcdVersion.parse(to), releases.versions())
            .stream()
            .map(EtcdVersion::toString)
            .toList();
    System.out.printf(
        "== bench: %s, %s -> %s (ladder %s), on 127.0.0.1 (%d cores); the new binaries on every"
            + " host beforehand in both columns%n",
        c.label(), from, to, ladder, Runtime.getRuntime().availableProcessors());
    Column bare;
    Map<String, String> bareSteps;
    HashCheckByHand.Measured byHand;
    try (Sandbox sandbox =
            Sandbox.create(
                new SandboxSpec(dir.resolve(name + "-bare"), name, c.members(), from, Map.of()),
                releases);
        SshConnector ssh = new SshConnector()) {
      fill(sandbox.cluster(), c.fillMiB());
      BareRollingRestart script = new BareRollingRestart(sandbox.cluster(), ssh);
      for (String rung : ladder) script.stage(rung, releases.binDir(rung));
      bareSteps = new LinkedHashMap<>();
      try (WriteProbe writes = new WriteProbe(clientUrls(sandbox.cluster()), "/bench/bare/")) {
        long start = System.nanoTime();
        Map<String, Long> down = new LinkedHashMap<>();
        for (String rung : ladder) {
          script.run(rung, releases.binDir(rung)).forEach((m, ms) -> down.put(m + "@" + rung, ms));
          script.steps().forEach((m, steps) -> bareSteps.put(m + "@" + rung, steps));
        }
        bare = new Column(millisSince(start), down, writes.stopAndVerify());
      }
      byHand = HashCheckByHand.measure(sandbox.cluster(), clientUrls(sandbox.cluster()));
    }
    discard(dir.resolve(name + "-bare"));
    print("bare script", bare);
    bareSteps.forEach((member, steps) -> System.out.printf("     %s: %s%n", member, steps));
    System.out.printf(
        "   hashkv of every member by hand (etcdctl endpoint hashkv --cluster), a writer running:"
            + " %s ms, longest write stall %d ms%n",
        byHand.millisByMember(), byHand.longestStallMillis());

    Column runbook;
    try (Sandbox sandbox =
            Sandbox.create(
                new SandboxSpec(dir.resolve(name + "-runbook"), name, c.members(), from, Map.of()),
                releases);
        SshConnector ssh = new SshConnector();
        LocalRunbooks runbooks =
            LocalRunbooks.start(
                List.of("worker"),
                Map.of(
                    "runbooks.inventory",
                    sandbox.inventoryFile().toString(),
                    "runbooks.task-queue",
                    "etcd-runbooks-bench"))) {
      ApplicationContext context = runbooks.context();
      fill(sandbox.cluster(), c.fillMiB());
      BareRollingRestart staging = new BareRollingRestart(sandbox.cluster(), ssh);
      for (String rung : ladder) staging.stage(rung, releases.binDir(rung));
      WorkflowClient client = context.getBean(WorkflowClient.class);
      UpgradeClusterWorkflow workflow =
          client.newWorkflowStub(
              UpgradeClusterWorkflow.class,
              WorkflowOptions.newBuilder()
                  .setWorkflowId(UpgradeClusterWorkflow.workflowId(name))
                  .setTaskQueue("etcd-runbooks-bench")
                  .build());
      warmUp(client, name, to);
      try (WriteProbe writes = new WriteProbe(clientUrls(sandbox.cluster()), "/bench/runbook/")) {
        long start = System.nanoTime();
        UpgradeResult result =
            workflow.upgrade(UpgradeRequest.to(name, to, RunbookOptions.defaults()));
        long took = millisSince(start);
        Map<String, Long> down = new LinkedHashMap<>();
        for (MemberDownTime d : result.memberDownTimes())
          down.put(d.member() + "@" + d.version(), d.millis());
        runbook = new Column(took, down, writes.stopAndVerify());
        print("runbook", runbook);
        System.out.println("     members: " + result.memberVersions());
        var steps = workflow.progress().completed();
        long first = steps.isEmpty() ? 0 : steps.get(0).startedAtMillis();
        steps.stream()
            .filter(step -> verbose || step.name().matches("m\\d+: .*"))
            .forEach(
                step ->
                    System.out.printf(
                        verbose ? "     +%5d ms %-60s %5d ms%n" : "     %2$-40s %3$5d ms%n",
                        step.startedAtMillis() - first,
                        step.name(),
                        step.durationMillis()));
        long stallFrom = runbook.writes().longestStallFromMillis();
        System.out.printf(
            "     longest write stall (%d ms) began at +%d ms, during: %s%n",
            runbook.writes().longestStallMillis(), stallFrom - first, during(steps, stallFrom));
        if (verbose) {
          for (WriteProbe.Stall stall : runbook.writes().stalls()) {
            System.out.printf(
                "     write stall %4d ms at +%5d ms (%s), during: %s%n",
                stall.millis(),
                stall.fromMillis() - first,
                LocalTime.ofInstant(
                    Instant.ofEpochMilli(stall.fromMillis()), ZoneId.systemDefault()),
                during(steps, stall.fromMillis()));
          }
        }
      }
      RunTimeline.of(
              client,
              UpgradeClusterWorkflow.workflowId(name),
              context.getBean(MeterRegistry.class),
              name)
          .print("     ");
    }
    discard(dir.resolve(name + "-runbook"));
    return verdict(bare, runbook, stallTargetMillis(byHand.longestStallMillis()));
  }

  /**
   * A worker in production has run runbooks before: one dry run (discovery, checks, plan; it
   * touches nothing) warms this fresh worker's classes, connections and Temporal pollers, as the
   * bare column's own staging warmed its SSH code. Printed, not counted.
   */
  private static void warmUp(WorkflowClient client, String cluster, String to) {
    long start = System.nanoTime();
    client
        .newWorkflowStub(
            UpgradeClusterWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(UpgradeClusterWorkflow.workflowId(cluster) + "-dry-run-warm-up")
                .setTaskQueue("etcd-runbooks-bench")
                .build())
        .upgrade(UpgradeRequest.to(cluster, to, RunbookOptions.defaults().asDryRun()));
    System.out.printf(
        "   warm-up: a dry run of the runbook on the same worker, %d ms (not counted)%n",
        millisSince(start));
  }

  private static boolean verdict(Column bare, Column runbook, long stallTarget) {
    List<String> missed = missedTargets(bare, runbook, stallTarget);
    double downRatio = (double) runbook.worstDown() / Math.max(1, bare.worstDown());
    double totalRatio = (double) runbook.totalMillis() / Math.max(1, bare.totalMillis());
    System.out.printf(
        "== worst member down time runbook / bare = %d / %d ms = %.2fx (target <= %.1fx); whole"
            + " upgrade %d / %d ms = %.2fx (target <= %.1fx); longest write stall runbook %d ms"
            + " (target < %d, bare %d); acknowledged writes lost: bare %d, runbook %d -> %s%n",
        runbook.worstDown(),
        bare.worstDown(),
        downRatio,
        DOWN_TIME_TARGET,
        runbook.totalMillis(),
        bare.totalMillis(),
        totalRatio,
        TOTAL_TARGET,
        runbook.writes().longestStallMillis(),
        stallTarget,
        bare.writes().longestStallMillis(),
        bare.writes().lost(),
        runbook.writes().lost(),
        missed.isEmpty() ? "OK" : "MISSED: " + String.join(", ", missed));
    return missed.isEmpty();
  }

  /**
   * The longest write stall allowed: {@link #STALL_TARGET_MILLIS}, or, where one consistency check
   * by hand stalls writes longer (a hashkv scan of a large keyspace, which any check of hashkv
   * pays), {@link #BY_HAND_STALL_TARGET} times that stall, measured in the same run.
   */
  static long stallTargetMillis(long byHandStallMillis) {
    return Math.max(STALL_TARGET_MILLIS, Math.round(BY_HAND_STALL_TARGET * byHandStallMillis));
  }

  static final double BY_HAND_STALL_TARGET = 1.5;

  /**
   * The targets the runbook's column misses against the bare one's, by name; empty when none.
   *
   * @param stallTarget the longest write stall allowed ({@link #stallTargetMillis})
   */
  static List<String> missedTargets(Column bare, Column runbook, long stallTarget) {
    double downRatio = (double) runbook.worstDown() / Math.max(1, bare.worstDown());
    double totalRatio = (double) runbook.totalMillis() / Math.max(1, bare.totalMillis());
    List<String> missed = new ArrayList<>();
    if (downRatio > DOWN_TIME_TARGET) missed.add("member down time");
    if (totalRatio > TOTAL_TARGET) missed.add("whole upgrade");
    if (runbook.writes().longestStallMillis() >= stallTarget) missed.add("write stall");
    if (bare.writes().lost() > 0 || runbook.writes().lost() > 0) missed.add("lost writes");
    return missed;
  }

  private static void print(String column, Column measured) {
    System.out.printf(
        "   %-12s %6d ms; member down time (ms) %s; writes: %d acknowledged, %d failed, longest"
            + " stall %d ms, %d lost%n",
        column + ":",
        measured.totalMillis(),
        measured.downMillis(),
        measured.writes().acknowledged(),
        measured.writes().failed(),
        measured.writes().longestStallMillis(),
        measured.writes().lost());
  }

  /** Fills the keyspace with {@code mib} MiB in 512 KiB values, before anything is measured. */
  private static void fill(ClusterSpec cluster, int mib) throws Exception {
    if (mib <= 0) return;
    long start = System.nanoTime();
    byte[] value = new byte[FILL_VALUE_BYTES];
    Arrays.fill(value, (byte) 'x');
    try (Client client =
        Client.builder().endpoints(clientUrls(cluster).toArray(String[]::new)).build()) {
      int values = mib * 1024 * 1024 / FILL_VALUE_BYTES;
      for (int i = 0; i < values; i++) {
        client
            .getKVClient()
            .put(
                ByteSequence.from("/bench/fill/" + i, StandardCharsets.UTF_8),
                ByteSequence.from(value))
            .get(30, TimeUnit.SECONDS);
      }
    }
    System.out.printf("   (keyspace filled with %d MiB in %d ms)%n", mib, millisSince(start));
  }

  private static long millisSince(long startNanos) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
  }

  private static List<String> clientUrls(ClusterSpec cluster) {
    return cluster.members().stream().map(MemberSpec::clientUrl).toList();
  }

  /** The names of the steps under way at {@code epochMillis}. */
  private static List<String> during(
      List<io.etcdrunbooks.workflows.common.CompletedStep> steps, long epochMillis) {
    return steps.stream()
        .filter(
            step ->
                step.startedAtMillis() <= epochMillis
                    && epochMillis <= step.startedAtMillis() + step.durationMillis())
        .map(io.etcdrunbooks.workflows.common.CompletedStep::name)
        .toList();
  }
}
