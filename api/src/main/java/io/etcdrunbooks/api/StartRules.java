package io.etcdrunbooks.api;

import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.FleetSelector;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.workflows.RunbookCatalog;
import io.etcdrunbooks.workflows.RunbookDefinition;
import io.etcdrunbooks.workflows.activities.ReleaseActivities;
import io.etcdrunbooks.workflows.backup.BackupScheduleRequest;
import io.etcdrunbooks.workflows.downgrade.DowngradeRequest;
import io.etcdrunbooks.workflows.drill.RestoreDrillRequest;
import io.etcdrunbooks.workflows.fleet.FleetUpgradeRequest;
import io.etcdrunbooks.workflows.maintenance.MaintenanceRequest;
import io.etcdrunbooks.workflows.maintenance.MaintenanceScheduleRequest;
import io.etcdrunbooks.workflows.migrate.MigrateRequest;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.recover.RecoverQuorumRequest;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberRequest;
import io.etcdrunbooks.workflows.restore.RestoreRequest;
import io.etcdrunbooks.workflows.rollback.RollbackRequest;
import io.etcdrunbooks.workflows.scale.ScaleClusterRequest;
import io.etcdrunbooks.workflows.scale.ScalePlanning;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.micronaut.context.BeanProvider;
import jakarta.inject.Singleton;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What the API checks of each runbook's request before {@link RunbookStarter} starts it: the
 * request itself, the inventory and the binary source (400, before anything is touched), then the
 * cluster as it is now ({@link StartChecks}, after the refusal of a second change). A runbook
 * without rules here is checked only for its cluster being in the inventory.
 */
@Singleton
public final class StartRules {

  /** A runbook's rules. */
  record Rule<R>(Consumer<R> validate, Consumer<R> check, Function<R, Map<String, String>> memo) {

    static <R> Rule<R> none() {
      return new Rule<>(r -> {}, r -> {}, r -> Map.of());
    }
  }

  private final InventorySource inventory;
  private final StartChecks checks;
  private final BeanProvider<ReleaseActivities> releases;
  private final Map<String, Rule<?>> rules = new HashMap<>();

  /**
   * @param releases what the inventory's binary source offers, as the worker's preflight reads it;
   *     looked up at each start, so that an inventory without a usable releases section only skips
   *     that check
   */
  public StartRules(
      InventorySource inventory, StartChecks checks, BeanProvider<ReleaseActivities> releases) {
    this.inventory = inventory;
    this.checks = checks;
    this.releases = releases;
    add(RunbookCatalog.UPGRADE, this::upgrade, this::upgradeState);
    add(RunbookCatalog.ROLLBACK, this::rollback, this::rollbackState);
    add(RunbookCatalog.DOWNGRADE, this::downgrade, r -> {});
    add(
        RunbookCatalog.REPLACE_MEMBER,
        this::replaceMember,
        this::replaceMemberState,
        r -> Map.of(RunbookStarter.MEMBER, r.failedMember()));
    add(RunbookCatalog.RESTORE, this::restore, r -> {});
    add(RunbookCatalog.MIGRATE_V2_TO_V3, this::migrate, r -> {});
    add(RunbookCatalog.MAINTENANCE, StartRules::maintenance, r -> {});
    add(
        RunbookCatalog.SCALE,
        this::scale,
        r -> checks.scale(inventory.get().cluster(r.cluster()), r));
    add(
        RunbookCatalog.RECOVER_QUORUM,
        this::recoverQuorum,
        r -> checks.recoverQuorum(inventory.get().cluster(r.cluster()), r));
    add(RunbookCatalog.RECONFIGURE_TLS, this::reconfigureTls, r -> {});
    add(RunbookCatalog.BACKUP_SCHEDULE, StartRules::backupSchedule, r -> {});
    add(RunbookCatalog.RESTORE_DRILL, StartRules::restoreDrill, r -> {});
    add(RunbookCatalog.MAINTENANCE_SCHEDULE, StartRules::maintenanceSchedule, r -> {});
    add(RunbookCatalog.FLEET_UPGRADE, this::fleetUpgrade, r -> {});
  }

  @SuppressWarnings("unchecked") // added by definition, with the definition's request type
  <R> Rule<R> of(RunbookDefinition<R> runbook) {
    return (Rule<R>) rules.getOrDefault(runbook.type(), Rule.none());
  }

  private <R> void add(RunbookDefinition<R> runbook, Consumer<R> validate, Consumer<R> check) {
    add(runbook, validate, check, r -> Map.of());
  }

  private <R> void add(
      RunbookDefinition<R> runbook,
      Consumer<R> validate,
      Consumer<R> check,
      Function<R, Map<String, String>> memo) {
    rules.put(runbook.type(), new Rule<>(validate, check, memo));
  }

  private void upgrade(UpgradeRequest request) {
    if (request.targetVersion() == null || request.targetVersion().isBlank()) {
      throw new IllegalArgumentException(
          "targetVersion is required: the etcd version to end on, such as 3.5.30");
    }
    EtcdVersion.parse("targetVersion", request.targetVersion());
    offered(request.cluster(), "targetVersion", request.targetVersion());
    requireTimeout("memberTimeoutSeconds", request.memberTimeoutSeconds());
  }

  private void upgradeState(UpgradeRequest request) {
    if (!request.dryRun()) {
      checks.upgrade(
          request.cluster(), EtcdVersion.parse("targetVersion", request.targetVersion()));
    }
  }

  /**
   * A rollback of a mixed cluster to its old version (or to {@code toVersion}), or through a
   * restore.
   */
  private void rollback(RollbackRequest request) {
    optionalVersion(request.cluster(), "toVersion", request.toVersion());
    requireTimeout("memberTimeoutSeconds", request.memberTimeoutSeconds());
    StartChecks.backupId("backupId", request.backupId());
  }

  /** A downgrade to a version the binary source offers; the runbook's preflight checks the rest. */
  private void downgrade(DowngradeRequest request) {
    if (request.toVersion() == null || request.toVersion().isBlank()) {
      throw new IllegalArgumentException(
          "toVersion is required: the etcd version every member runs at the end, such as 3.5.35");
    }
    EtcdVersion.parse("toVersion", request.toVersion());
    offered(request.cluster(), "toVersion", request.toVersion());
    requireTimeout("memberTimeoutSeconds", request.memberTimeoutSeconds());
  }

  private void rollbackState(RollbackRequest request) {
    if (!request.dryRun())
      checks.rollback(request.cluster(), request.toVersion(), request.acknowledgeDataLoss());
  }

  private void replaceMember(ReplaceMemberRequest request) {
    ClusterSpec cluster = inventory.get().cluster(request.cluster());
    if (request.failedMember() == null || request.failedMember().isBlank()) {
      throw new IllegalArgumentException(
          "failedMember is required: the inventory name of the member to replace; cluster '"
              + request.cluster()
              + "' has "
              + cluster.members().stream().map(MemberSpec::name).toList());
    }
    cluster.member(request.failedMember());
    requireTimeout("memberTimeoutSeconds", request.memberTimeoutSeconds());
    requireTimeout("apiServerTimeoutSeconds", request.apiServerTimeoutSeconds());
  }

  private void replaceMemberState(ReplaceMemberRequest request) {
    checks.replaceMember(inventory.get().cluster(request.cluster()), request);
    if (!request.dryRun())
      checks.replaceMember(request.cluster(), request.failedMember(), request.force());
  }

  /**
   * A restore; refused here without acknowledgeDataLoss, before Temporal sees it (the runbook
   * refuses it too).
   */
  private void restore(RestoreRequest request) {
    if (!request.acknowledgeDataLoss()) {
      throw new IllegalArgumentException(
          "acknowledgeDataLoss must be true: a restore replaces the cluster's data with the backup's"
              + " and every write made after the backup is lost");
    }
    optionalVersion(request.cluster(), "etcdVersion", request.etcdVersion());
    StartChecks.backupId("backupId", request.backupId());
    requireTimeout("memberTimeoutSeconds", request.memberTimeoutSeconds());
    requireTimeout("apiServerTimeoutSeconds", request.apiServerTimeoutSeconds());
    requireTimeout("controllersOutSeconds", request.controllersOutSeconds());
  }

  /** A v2 -> v3 migration; the cluster's stores and apiservers are checked by its preflight. */
  private void migrate(MigrateRequest request) {
    requireTimeout("memberTimeoutSeconds", request.memberTimeoutSeconds());
    requireTimeout("apiServerTimeoutSeconds", request.apiServerTimeoutSeconds());
  }

  /** The compaction revision is checked against the cluster's by the preflight. */
  private static void maintenance(MaintenanceRequest request) {
    if (request.compactRevision() < 0 || request.compactKeepRevisions() < -1) {
      throw new IllegalArgumentException(
          "compactRevision must be 0 or more and compactKeepRevisions -1 (everything) or more,"
              + " got %d and %d"
                  .formatted(request.compactRevision(), request.compactKeepRevisions()));
    }
    if (request.compactRevision() > 0 && request.compactKeepRevisions() != 0) {
      throw new IllegalArgumentException("give compactRevision or compactKeepRevisions, not both");
    }
  }

  /**
   * Refused when the target is not an odd number of 3 or more, the new members are not as many as
   * the target needs, a placement is incomplete or on an inventory member's URL, or a new host
   * refuses SSH connections. etcd's own view is checked by its preflight.
   */
  private void scale(ScaleClusterRequest request) {
    List<String> problems = ScalePlanning.inputProblems(request);
    if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("; ", problems));
    requireTimeout("memberTimeoutSeconds", request.memberTimeoutSeconds());
    requireTimeout("apiServerTimeoutSeconds", request.apiServerTimeoutSeconds());
  }

  /**
   * Refused without acknowledgeDataLoss. It waits for an admin's approval before it touches
   * anything ({@link ApprovalRules}).
   */
  private void recoverQuorum(RecoverQuorumRequest request) {
    if (!request.acknowledgeDataLoss()) {
      throw new IllegalArgumentException(
          "acknowledgeDataLoss must be true: the cluster is rebuilt from one member (or a backup),"
              + " and writes that reached only the lost members are lost");
    }
    if (request.confirmLossSeconds() < 0 || request.confirmLossSeconds() > 86400) {
      throw new IllegalArgumentException(
          "confirmLossSeconds must be between 0 and 86400, got " + request.confirmLossSeconds());
    }
    requireTimeout("memberTimeoutSeconds", request.memberTimeoutSeconds());
    requireTimeout("apiServerTimeoutSeconds", request.apiServerTimeoutSeconds());
  }

  /** Its certificates and hosts are checked by its preflight. */
  private void reconfigureTls(ReconfigureTlsRequest request) {
    boolean enable = ReconfigureTlsRequest.ENABLE.equals(request.mode());
    boolean rotateCa = ReconfigureTlsRequest.ROTATE_CA.equals(request.mode());
    if (!enable && !rotateCa && !ReconfigureTlsRequest.ROTATE_CERTIFICATES.equals(request.mode())) {
      throw new IllegalArgumentException(
          "mode must be %s, %s or %s, got '%s'"
              .formatted(
                  ReconfigureTlsRequest.ROTATE_CERTIFICATES,
                  ReconfigureTlsRequest.ENABLE,
                  ReconfigureTlsRequest.ROTATE_CA,
                  request.mode()));
    }
    if (enable != (request.enable() != null)) {
      throw new IllegalArgumentException(
          enable
              ? "mode enable needs \"enable\": {\"urls\":\"both\",\"caFile\":...,"
                  + " \"clientCertFile\":..., \"clientKeyFile\":...} (paths on the worker)"
              : "\"enable\" is only for mode enable");
    }
    if (rotateCa != (request.rotateCa() != null)) {
      throw new IllegalArgumentException(
          rotateCa
              ? "mode rotate-ca needs \"rotateCa\": {\"caFile\":..., \"clientCertFile\":...,"
                  + " \"clientKeyFile\":...} (the new CA and the worker's certificate from it, on"
                  + " the worker)"
              : "\"rotateCa\" is only for mode rotate-ca");
    }
    String source = request.fromCaKey() ? request.caKeyFile() : request.certificatesDir();
    boolean both =
        request.fromCaKey()
            && request.certificatesDir() != null
            && !request.certificatesDir().isBlank();
    if (both || source == null || !source.startsWith("/")) {
      throw new IllegalArgumentException(
          "give certificatesDir (an absolute directory on the worker) or caKeyFile (an absolute"
              + " path on the worker), one of them, got certificatesDir '%s', caKeyFile '%s'"
                  .formatted(request.certificatesDir(), request.caKeyFile()));
    }
    if (request.validityDays() < 0 || request.validityDays() > 3650) {
      throw new IllegalArgumentException(
          "validityDays must be 0 (365) to 3650, got " + request.validityDays());
    }
    requireTimeout("memberTimeoutSeconds", request.memberTimeoutSeconds());
  }

  private static void backupSchedule(BackupScheduleRequest request) {
    if (request.intervalMinutes() < 0) {
      throw new IllegalArgumentException(
          "intervalMinutes must be 0 (the inventory's backup.intervalMinutes) or more, got "
              + request.intervalMinutes());
    }
  }

  private static void restoreDrill(RestoreDrillRequest request) {
    StartChecks.backupId("backupId", request.backupId());
  }

  private static void maintenanceSchedule(MaintenanceScheduleRequest request) {
    if (request.intervalMinutes() < 0 || request.compactOlderThanMinutes() < 0) {
      throw new IllegalArgumentException(
          "intervalMinutes and compactOlderThanMinutes must be 0 or more, got %d and %d"
              .formatted(request.intervalMinutes(), request.compactOlderThanMinutes()));
    }
    if (request.compactOlderThanMinutes() > 0
        && request.compactOlderThanMinutes() < request.effectiveIntervalMinutes()) {
      throw new IllegalArgumentException(
          ("compactOlderThanMinutes (%d) must be at least intervalMinutes (%d): a revision is"
                  + " noted once a round")
              .formatted(request.compactOlderThanMinutes(), request.effectiveIntervalMinutes()));
    }
    if (request.compactOlderThanMinutes() > 0
        && request.compactOlderThanMinutes() < MaintenanceScheduleRequest.APISERVER_WINDOW_MINUTES
        && !request.forceCompaction()) {
      throw new IllegalArgumentException(
          ("compactOlderThanMinutes (%d) must be at least %d: kube-apiserver serves paginated"
                  + " LISTs and lagging watches from the last 5-10 minutes of history, and they"
                  + " fail with 410 Gone and relist at once when it is compacted; set"
                  + " forceCompaction to accept that")
              .formatted(
                  request.compactOlderThanMinutes(),
                  MaintenanceScheduleRequest.APISERVER_WINDOW_MINUTES));
    }
  }

  /**
   * The request checked and the selector (or the inventory's fleet) shown to select clusters before
   * anything starts; each cluster's own upgrade is checked by the fleet's detection.
   */
  private void fleetUpgrade(FleetUpgradeRequest request) {
    List<String> problems = request.problems();
    if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("; ", problems));
    Inventory current = inventory.get();
    String selector =
        request.selector().isBlank() ? current.fleets().get(request.fleet()) : request.selector();
    if (selector == null) {
      throw new IllegalArgumentException(
          "no fleet '%s' in the inventory (fleets: %s) and no selector given"
              .formatted(request.fleet(), new TreeSet<>(current.fleets().keySet())));
    }
    List<String> selected =
        FleetSelector.parse(selector).select(current).stream().map(ClusterSpec::name).toList();
    if (selected.isEmpty()) {
      throw new IllegalArgumentException(
          "selector '" + selector + "' matches none of the inventory's clusters");
    }
  }

  private void optionalVersion(String cluster, String field, String value) {
    if (value != null && !value.isBlank() && !EtcdVersion.isVersion(value)) {
      throw new IllegalArgumentException(
          field + " must look like 3.4.23 (or be left out), got '" + value + "'");
    }
    if (value != null && !value.isBlank()) offered(cluster, field, value);
  }

  /**
   * Refuses a version the inventory's binary source does not offer, before anything starts. When
   * this process cannot read the source (an API host without the release cache), the runbook's own
   * preflight still refuses it.
   */
  private void offered(String cluster, String field, String version) {
    List<String> versions;
    try {
      versions = releases.get().availableVersions(new ClusterRef(cluster));
    } catch (RuntimeException e) {
      return;
    }
    if (!versions.isEmpty() && !versions.contains(version)) {
      throw new IllegalArgumentException(
          field
              + " "
              + version
              + " is not offered by the inventory's binary source"
              + " (releases): it offers "
              + versions
              + ". Fetch it into releases.localDir or add its SHA-256 to releases.sha256");
    }
  }

  private static void requireTimeout(String field, int seconds) {
    if (seconds < 0 || seconds > 86_400) {
      throw new IllegalArgumentException(
          field + " must be 0 (the runbook's default) to 86400 seconds, got " + seconds);
    }
  }
}
