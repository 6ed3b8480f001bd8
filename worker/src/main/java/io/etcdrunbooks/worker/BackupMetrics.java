package io.etcdrunbooks.worker;

import io.etcdrunbooks.activities.backup.LastDrill;
import io.etcdrunbooks.activities.backup.NewestBackups;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.InventorySource;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Whether each cluster's backups would get it back, labelled {@code etcd_cluster}:
 *
 * <ul>
 *   <li>{@code etcd_runbooks_backup_newest_verified_age_seconds{etcd_cluster,target}}: how old the
 *       newest verified backup is on each target ({@code local}, {@code offsite}, {@code
 *       object_store}), as of the scrape;
 *   <li>{@code etcd_runbooks_restore_drill_last_result{etcd_cluster}}: 1 when the last RestoreDrill
 *       passed, 0 when it failed;
 *   <li>{@code etcd_runbooks_restore_drill_last_success_timestamp_seconds{etcd_cluster}}: when the
 *       last drill that passed finished.
 * </ul>
 *
 * Read again in the background when a scrape finds them older than {@link #MAX_AGE}, so a scrape
 * never waits on an off-site host or a bucket; and at once when a cluster's backup directory
 * changed since the last read (a backup or a drill finished), so the dashboard and the backup-age
 * alert see it at the next scrape rather than up to a minute later. Made only in a process with the
 * worker role: the backup directory, the SSH keys of the off-site hosts and the bucket's
 * credentials are the worker's, and an API-only process would make an SSH client to fail on keys it
 * does not have.
 */
@Singleton
@Requires(property = "runbooks.roles", pattern = "(.*,)?worker(,.*)?")
public final class BackupMetrics {

  static final String NEWEST_AGE = "etcd.runbooks.backup.newest.verified.age";
  static final String DRILL_RESULT = "etcd.runbooks.restore.drill.last.result";
  static final String DRILL_SUCCESS = "etcd.runbooks.restore.drill.last.success.timestamp";
  static final Duration MAX_AGE = Duration.ofMinutes(1);

  private final InventorySource inventory;
  private final NewestBackups newest;
  private final MultiGauge ages;
  private final MultiGauge results;
  private final MultiGauge successes;
  private final BackgroundRead read;
  private volatile Map<String, FileTime> readDirs = Map.of();

  /**
   * @param ssh the client off-site hosts are listed with (null: off-site copies are not read)
   */
  public BackupMetrics(
      InventorySource inventory, SshConnector ssh, PrometheusMeterRegistry registry) {
    this.inventory = inventory;
    this.newest = new NewestBackups(ssh);
    this.ages =
        MultiGauge.builder(NEWEST_AGE)
            .description("age of the newest verified backup of a cluster on a target")
            .baseUnit("seconds")
            .register(registry);
    this.results =
        MultiGauge.builder(DRILL_RESULT)
            .description("1 when the cluster's last restore drill passed, 0 when it failed")
            .register(registry);
    this.successes =
        MultiGauge.builder(DRILL_SUCCESS)
            .description("Unix time the cluster's last passing restore drill finished")
            .baseUnit("seconds")
            .register(registry);
    this.read = new BackgroundRead("backups and restore drills", MAX_AGE, this::refresh);
  }

  /**
   * Starts a read of every cluster's backups when the last one is older than {@link #MAX_AGE} or a
   * backup directory changed since.
   */
  public void refreshIfStale() {
    Map<String, FileTime> dirs;
    try {
      dirs = backupDirs();
    } catch (RuntimeException e) {
      dirs = readDirs; // the read names what is wrong with the inventory
    }
    read.startIfStale(!dirs.equals(readDirs));
  }

  /** Each cluster's backup directory's last change: a new backup record, drill or deletion. */
  private Map<String, FileTime> backupDirs() {
    Map<String, FileTime> dirs = new TreeMap<>();
    for (ClusterSpec spec : inventory.get().clusters().values()) {
      try {
        dirs.put(spec.name(), Files.getLastModifiedTime(Path.of(spec.backupDir())));
      } catch (IOException | RuntimeException noDirectoryYet) {
        dirs.put(spec.name(), FileTime.fromMillis(0));
      }
    }
    return dirs;
  }

  /** Reads every cluster's backups and drill now. */
  void refresh() {
    List<MultiGauge.Row<?>> ageRows = new ArrayList<>();
    List<MultiGauge.Row<?>> resultRows = new ArrayList<>();
    List<MultiGauge.Row<?>> successRows = new ArrayList<>();
    List<ClusterSpec> clusters;
    try {
      clusters = List.copyOf(inventory.get().clusters().values());
    } catch (RuntimeException e) {
      throw new IllegalStateException("inventory not read: " + e.getMessage(), e);
    }
    // taken before the read: a backup finished during it is read again at the next scrape
    Map<String, FileTime> dirs = backupDirs();
    for (ClusterSpec spec : clusters) {
      for (Map.Entry<String, Instant> e : newest.of(spec).entrySet()) {
        ageRows.add(
            MultiGauge.Row.of(
                Tags.of("etcd_cluster", spec.name(), "target", e.getKey()),
                e.getValue(),
                taken -> Duration.between(taken, Instant.now()).toMillis() / 1000.0));
      }
      LastDrill.read(spec)
          .ifPresent(
              drill -> {
                Tags tags = Tags.of("etcd_cluster", spec.name());
                resultRows.add(MultiGauge.Row.of(tags, drill.passed() ? 1 : 0));
                if (!drill.lastSuccessAt().isBlank())
                  successRows.add(
                      MultiGauge.Row.of(
                          tags, Instant.parse(drill.lastSuccessAt()).toEpochMilli() / 1000.0));
              });
    }
    ages.register(ageRows, true);
    results.register(resultRows, true);
    successes.register(successRows, true);
    readDirs = dirs;
  }
}
