package io.etcdrunbooks.activities;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.activities.release.ReleaseActivitiesImpl;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.testkit.EtcdReleases;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.upgrade.FlagRules;
import io.etcdrunbooks.workflows.upgrade.FlagTranslations;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Each flag the upgrade refuses for a minor that can be run here: the previous minor's binary takes
 * it, this minor's binary stops with "flag provided but not defined".
 */
@RealEtcd
class FlagTableAgainstBinariesTest {

  private static final Map<String, String> BINARY_OF_MINOR =
      Map.of("3.3", "3.3.25", "3.4", "3.4.23", "3.5", "3.5.30");
  private static final Map<String, String> PREVIOUS = Map.of("3.4", "3.3", "3.5", "3.4");

  /** A value each flag takes on the minor before. */
  private static final Map<String, String> VALID =
      Map.of(
          "--debug", "true",
          "--log-package-levels", "etcdserver=INFO",
          "--log-output", "stderr",
          "--ca-file", "/dev/null",
          "--peer-ca-file", "/dev/null");

  @Test
  void everyFlagTheTableRemovesIsRefusedByThatMinorAndTakenByTheOneBefore() throws Exception {
    int checked = 0;
    for (FlagRules.Removed row : FlagRules.removed()) {
      if (!PREVIOUS.containsKey(row.minor())) continue; // 3.6 and 3.7: no binary here
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
    assertThat(checked).isEqualTo(5);
  }

  @Test
  void everyTranslationNamesAFlagTheTargetTakesAndTheNewNameIsUnknownBeforeItCame()
      throws Exception {
    for (String version : BINARY_OF_MINOR.values()) {
      for (FlagTranslations.Renamed row : FlagTranslations.renamed()) {
        for (String name : List.of(row.oldFlag(), row.newFlag())) {
          String value = name.equals("--log-level") ? "debug" : VALID.getOrDefault(name, "stderr");
          if (name.endsWith("ca-file")) value = "/dev/null";
          var translated = FlagTranslations.translate(name, value, version);
          if (translated.isPresent() && translated.get() == FlagTranslations.DROPPED) continue;
          String flag =
              translated.map(FlagTranslations.Flag::asArgument).orElse(name + "=" + value);
          assertThat(run(version, flag))
              .as("etcd %s with %s (from %s)", version, flag, name)
              .doesNotContain("flag provided but not defined")
              .contains("etcd Version: " + version);
        }
      }
    }
    assertThat(run("3.3.25", "--log-level=debug"))
        .as("3.3 has no --log-level: the way back must translate it")
        .contains("flag provided but not defined");
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
