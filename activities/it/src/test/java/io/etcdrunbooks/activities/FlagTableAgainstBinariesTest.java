package io.etcdrunbooks.activities;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.activities.release.ReleaseActivitiesImpl;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.testkit.EtcdReleases;
import io.etcdrunbooks.testkit.Ports;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.upgrade.FlagRules;
import io.etcdrunbooks.workflows.upgrade.FlagTranslations;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The flag tables held against the real binaries: each flag the upgrade refuses for a minor, the
 * previous minor's binary takes and this minor's stops with "flag provided but not defined"; a
 * member's flags translated for 3.5.35, 3.6.16 and 3.7.3, forwards and back, start that binary on a
 * scratch data dir and loopback ports ("ready to serve client requests"), not only parse.
 */
@RealEtcd
@Timeout(180)
class FlagTableAgainstBinariesTest {

  private static final Map<String, String> BINARY_OF_MINOR =
      Map.of("3.3", "3.3.25", "3.4", "3.4.23", "3.5", "3.5.30", "3.6", "3.6.16", "3.7", "3.7.3");
  private static final Map<String, String> PREVIOUS =
      Map.of("3.4", "3.3", "3.5", "3.4", "3.6", "3.5", "3.7", "3.6");

  /** A value each flag takes on the minor before. */
  private static final Map<String, String> VALID =
      Map.of(
          "--debug", "true",
          "--log-package-levels", "etcdserver=INFO",
          "--log-output", "stderr",
          "--ca-file", "/dev/null",
          "--peer-ca-file", "/dev/null",
          "--enable-v2", "false",
          "--experimental-enable-v2v3", "/v3");

  @Test
  void everyFlagTheTableRemovesIsRefusedByThatMinorAndTakenByTheOneBefore() throws Exception {
    int checked = 0;
    for (FlagRules.Removed row : FlagRules.removed()) {
      String flag = row.flag() + "=" + VALID.get(row.flag());
      assertThat(run(BINARY_OF_MINOR.get(row.minor()), flag))
          .as("etcd %s with %s", row.minor(), flag)
          .contains("flag provided but not defined");
      String before = BINARY_OF_MINOR.get(PREVIOUS.get(row.minor()));
      assertThat(run(before, flag))
          .as("etcd %s with %s", before, flag)
          .doesNotContain("flag provided but not defined")
          .contains("etcd Version: " + before);
      checked++;
    }
    assertThat(checked).isEqualTo(7);
  }

  @Test
  void everyTranslationNamesAFlagTheTargetTakesAndTheNewNameIsUnknownBeforeItCame()
      throws Exception {
    for (String version : List.of("3.3.25", "3.4.23", "3.5.30")) {
      for (FlagTranslations.Renamed row : FlagTranslations.renamed()) {
        if (!row.removedIn().startsWith("3.4") && !row.removedIn().startsWith("3.5")) continue;
        for (String name : List.of(row.oldFlag(), row.newFlag())) {
          String value = name.equals("--log-level") ? "debug" : VALID.getOrDefault(name, "stderr");
          if (name.endsWith("ca-file")) value = "/dev/null";
          List<String> flags = translated(List.of(name + "=" + value), version);
          if (flags.isEmpty()) continue;
          assertThat(run(version, flags.get(0)))
              .as("etcd %s with %s (from %s)", version, flags, name)
              .doesNotContain("flag provided but not defined")
              .contains("etcd Version: " + version);
        }
      }
    }
    assertThat(run("3.3.25", "--log-level=debug"))
        .as("3.3 has no --log-level: the way back must translate it")
        .contains("flag provided but not defined");
  }

  /** A value each 3.6 rename takes on 3.5, 3.6 and 3.7 alike, without anything to serve it. */
  private static final Map<String, String> VALUE_36 =
      Map.ofEntries(
          Map.entry("compact-hash-check-time", "1m"),
          Map.entry("corrupt-check-time", "1m"),
          Map.entry("compaction-batch-limit", "1000"),
          Map.entry("watch-progress-notify-interval", "5s"),
          Map.entry("warning-apply-duration", "100ms"),
          Map.entry("bootstrap-defrag-threshold-megabytes", "0"),
          Map.entry("memory-mlock", "false"),
          Map.entry("snapshot-catchup-entries", "5000"),
          Map.entry("compaction-sleep-interval", "10ms"),
          Map.entry("downgrade-check-time", "5s"),
          Map.entry("peer-skip-client-san-verification", "false"),
          Map.entry("enable-distributed-tracing", "false"),
          Map.entry("distributed-tracing-address", "localhost:4317"),
          Map.entry("distributed-tracing-service-name", "etcd"),
          Map.entry("distributed-tracing-instance-id", "scratch"),
          Map.entry("distributed-tracing-sampling-rate", "0"),
          Map.entry("warning-unary-request-duration", "300ms"));

  /**
   * A 3.5 member with every --experimental-* flag of the tables (its 3.5 names, the gates' flags)
   * starts on 3.5.35 and on 3.6.16 as it is (a mixed cluster is fine), and translated on 3.6.16 and
   * 3.7.3; 3.7.3 refuses each old name. Every --experimental-* flag 3.5.35 lists is translated or
   * named by the upgrade's preflight.
   */
  @Test
  void aMemberWithEvery35ExperimentalFlagStartsOn36And37OnceTranslated() throws Exception {
    List<String> of35 = new ArrayList<>(List.of("--log-level=info", "--log-outputs=stderr"));
    for (FlagTranslations.Renamed row : FlagTranslations.renamed()) {
      boolean lackedBy35 =
          FlagTranslations.added().stream()
              .anyMatch(a -> a.flag().equals(row.oldFlag()) && a.minor().equals("3.6"));
      if (!row.removedIn().equals("3.7") || lackedBy35) continue;
      of35.add(row.oldFlag() + "=" + VALUE_36.get(row.newFlag().substring(2)));
    }
    for (FlagTranslations.Gate gate : FlagTranslations.gates()) {
      if (gate.flag() != null) of35.add(gate.flag() + "=true");
    }
    ReleaseActivitiesImpl releases =
        new ReleaseActivitiesImpl(
            ClusterTargets.etcdOnly(() -> new Inventory(null, Map.of())), EtcdReleases.store());
    List<String> experimental35 =
        releases.flagsOf("3.5.35").stream().filter(f -> f.startsWith("--experimental-")).toList();
    assertThat(experimental35).isNotEmpty();
    for (String flag : experimental35) {
      assertThat(
              of35.stream().anyMatch(f -> f.startsWith(flag + "="))
                  || FlagRules.removed().stream().anyMatch(r -> r.flag().equals(flag)))
          .as("%s (etcd 3.5.35 --help) is translated or refused by the tables", flag)
          .isTrue();
    }

    List<String> for36 = translated(of35, "3.6.16");
    List<String> for37 = translated(of35, "3.7.3");
    assertThat(for36).noneMatch(f -> f.startsWith("--experimental-")).isEqualTo(for37);
    assertThat(for36)
        .contains(
            "--feature-gates=StopGRPCServiceOnDefrag=true,TxnModeWriteWithSharedBuffer=true,"
                + "InitialCorruptCheck=true,CompactHashCheck=true,LeaseCheckpoint=true,"
                + "LeaseCheckpointPersist=true");

    Map<String, Started> started =
        startAll(
            Map.of(
                "3.5.35 with its own flags", new Launch("3.5.35", of35),
                "3.6.16 with the 3.5 names", new Launch("3.6.16", of35),
                "3.6.16 translated", new Launch("3.6.16", for36),
                "3.7.3 translated", new Launch("3.7.3", for37)));
    started.forEach((what, s) -> assertThat(s.ready()).as("%s: %s", what, s.output()).isTrue());

    for (String old : of35) {
      if (!old.startsWith("--experimental-")) continue;
      assertThat(run("3.7.3", old))
          .as("etcd 3.7.3 with %s", old)
          .contains("flag provided but not defined");
    }
  }

  /**
   * A 3.7 member's flags (every gate, the new names, flags 3.6 added) start on 3.7.3, and
   * translated back on 3.6.16 and 3.5.35, which refuse them untranslated.
   */
  @Test
  void aMemberWith37FlagsGoesBackTo36And35AndStarts() throws Exception {
    List<String> of37 = new ArrayList<>();
    of37.add(
        "--feature-gates="
            + String.join(
                ",", FlagTranslations.gates().stream().map(g -> g.name() + "=true").toList()));
    for (FlagTranslations.Renamed row : FlagTranslations.renamed()) {
      if (row.removedIn().equals("3.7")) {
        of37.add(row.newFlag() + "=" + VALUE_36.get(row.newFlag().substring(2)));
      }
    }
    of37.addAll(List.of("--log-format=json", "--max-learners=1")); // 3.6 added them
    List<String> for36 = translated(of37, "3.6.16");
    List<String> for35 = translated(of37, "3.5.35");
    assertThat(for35).noneMatch(f -> f.startsWith("--feature-gates"));

    Map<String, Started> started =
        startAll(
            Map.of(
                "3.7.3 with its own flags", new Launch("3.7.3", of37),
                "3.6.16 translated", new Launch("3.6.16", for36),
                "3.5.35 translated", new Launch("3.5.35", for35),
                "3.6.16 untranslated", new Launch("3.6.16", of37)));
    assertThat(started.get("3.6.16 untranslated").output())
        .as("3.6 does not know 3.7's gates")
        .contains("unrecognized feature gate");
    started.forEach(
        (what, s) -> {
          if (!what.endsWith("untranslated")) {
            assertThat(s.ready()).as("%s: %s", what, s.output()).isTrue();
          }
        });
    assertThat(run("3.5.35", for36.get(0)))
        .as("3.5 has no --feature-gates")
        .contains("flag provided but not defined");
  }

  private static List<String> translated(List<String> flags, String version) {
    FlagTranslations.ForTarget to =
        FlagTranslations.forTarget(
            flags.stream().map(FlagTranslations.Flag::parse).toList(), version);
    assertThat(to.refused()).as("refused for %s", version).isEmpty();
    return to.flags().stream().map(FlagTranslations.Flag::asArgument).toList();
  }

  private record Launch(String version, List<String> flags) {}

  private record Started(boolean ready, String output) {}

  /** Each launch at once (two at a time: the machine has two cores), each on its own ports. */
  private Map<String, Started> startAll(Map<String, Launch> launches) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Map<String, Future<Started>> futures = new TreeMap<>();
      launches.forEach((what, l) -> futures.put(what, pool.submit(() -> start(l))));
      Map<String, Started> started = new TreeMap<>();
      for (var e : futures.entrySet()) started.put(e.getKey(), e.getValue().get());
      return started;
    } finally {
      pool.shutdownNow();
    }
  }

  @TempDir Path scratch;

  /**
   * etcd started as a one-member cluster with {@code flags}: ready once it logs "ready to serve
   * client requests", refused when it exits first (its output says why).
   */
  private Started start(Launch launch) throws IOException, InterruptedException {
    Path dataDir = Files.createTempDirectory(scratch, "etcd-" + launch.version());
    String client = "http://127.0.0.1:" + Ports.free();
    String peer = "http://127.0.0.1:" + Ports.free();
    List<String> command =
        new ArrayList<>(
            List.of(
                EtcdReleases.binDir(launch.version()).resolve("etcd").toString(),
                "--name=scratch",
                "--data-dir=" + dataDir,
                "--listen-client-urls=" + client,
                "--advertise-client-urls=" + client,
                "--listen-peer-urls=" + peer,
                "--initial-advertise-peer-urls=" + peer,
                "--initial-cluster=scratch=" + peer));
    command.addAll(launch.flags());
    Process etcd = new ProcessBuilder(command).redirectErrorStream(true).start();
    StringBuilder output = new StringBuilder();
    CountDownLatch ready = new CountDownLatch(1);
    Thread reader =
        new Thread(
            () -> {
              try (var lines =
                  new java.io.BufferedReader(
                      new java.io.InputStreamReader(
                          etcd.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = lines.readLine()) != null; ) {
                  synchronized (output) {
                    output.append(line).append('\n');
                  }
                  if (line.contains("ready to serve client requests")) ready.countDown();
                }
              } catch (IOException ended) {
                // the process was stopped
              }
              ready.countDown();
            });
    reader.start();
    try {
      assertThat(ready.await(60, TimeUnit.SECONDS))
          .as("etcd %s neither served nor stopped", launch.version())
          .isTrue();
      boolean served = etcd.isAlive();
      synchronized (output) {
        return new Started(
            served && output.toString().contains("ready to serve"), output.toString());
      }
    } finally {
      etcd.destroyForcibly();
      etcd.waitFor(10, TimeUnit.SECONDS);
      reader.join(10_000);
    }
  }

  @Test
  void theFlagsABinaryListsInItsHelpAreWhatTheUpgradePreflightHoldsMembersTo() {
    ReleaseActivitiesImpl releases =
        new ReleaseActivitiesImpl(
            ClusterTargets.etcdOnly(() -> new Inventory(null, Map.of())), EtcdReleases.store());
    assertThat(releases.flagsOf("3.5.30"))
        .contains("--name", "--log-level", "--log-outputs", "--trusted-ca-file")
        .doesNotContain("--debug", "--log-package-levels", "--ca-file");
    assertThat(releases.flagsOf("3.4.23")).contains("--debug", "--log-level", "--logger");
    assertThat(releases.flagsOf("3.3.25"))
        .contains("--debug", "--ca-file")
        .doesNotContain("--log-level");
  }

  private static String run(String version, String flag) throws IOException, InterruptedException {
    Process etcd =
        new ProcessBuilder(
                List.of(EtcdReleases.binDir(version).resolve("etcd").toString(), flag, "--version"))
            .redirectErrorStream(true)
            .start();
    try {
      assertThat(etcd.waitFor(20, TimeUnit.SECONDS)).as("etcd %s ended", version).isTrue();
      return new String(etcd.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    } finally {
      etcd.destroyForcibly();
    }
  }
}
