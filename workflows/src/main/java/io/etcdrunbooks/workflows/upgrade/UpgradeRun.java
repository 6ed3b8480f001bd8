package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.ConsistencyReport;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.KeyspaceDigest;
import io.etcdrunbooks.workflows.model.KeyspaceHashes;
import io.etcdrunbooks.workflows.phases.ClusterDescription;
import io.etcdrunbooks.workflows.phases.RunContext;
import io.temporal.workflow.Promise;
import io.temporal.workflow.Workflow;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What one upgrade has found and done so far; each phase reads it and adds to it. */
final class UpgradeRun {

  final RunContext ctx;
  final UpgradeRequest request;

  /** The cluster as discovered first, and again by the postflight. */
  ClusterState state;

  /** Workflow time of the first discovery. */
  long discoveredAt;

  /** The lowest version running and the versions to climb, parsed once by the preflight. */
  EtcdVersion running;

  List<EtcdVersion> ladder = List.of();
  UpgradePlan plan;
  BackupRecord backup;
  KeyspaceDigest before;
  KeyspaceDigest after;

  /**
   * Every member's hashkv at {@link #before}'s revision, read beside the backup; null in upgrades
   * that read the keyspace after the backup ({@link UpgradePatches#KEYSPACE_BESIDE_BACKUP}).
   */
  KeyspaceHashes beforeHashes;

  /** The same hashes read again while etcd raises the cluster version. */
  Promise<KeyspaceHashes> earlyHashes;

  final Map<String, List<String>> restarted = new LinkedHashMap<>();
  final List<String> notes = new java.util.ArrayList<>();

  /** The binaries' staging, when it goes on beside the backup; done before any member stops. */
  Promise<Void> staged = Workflow.newPromise(null);

  /**
   * Each member's keyspace is scanned by hashkv once before the upgrade and once after, plus once
   * on one member ({@link UpgradePatches#FEWER_HASH_SCANS}): the preflight's comparison, at
   * discovery's revision, gives {@link #beforeHashes}, and after the upgrade one member's hash at
   * that revision stands for all, since every member agrees at the later one.
   */
  boolean fewerHashScans;

  /** The membership and reported-version rules hold before each rung ({@link RungRules}). */
  boolean rungRules;

  /** The postflight's hashkv comparison, started while etcd raises the cluster version. */
  Promise<ConsistencyReport> earlyConsistency;

  /** The postflight's keyspace checksum, read while etcd raises the cluster version. */
  Promise<KeyspaceDigest> earlyKeyspace;

  UpgradeRun(RunContext ctx, UpgradeRequest request) {
    this.ctx = ctx;
    this.request = request;
  }

  String cluster() {
    return ctx.cluster();
  }

  boolean changes() {
    return !request.dryRun();
  }

  /** "upgrade of prod-1", for failure messages. */
  String what() {
    return "upgrade of " + cluster();
  }

  UpgradeResult result() {
    Map<String, String> versions = ClusterDescription.memberVersions(state);
    if (request.dryRun()) {
      return new UpgradeResult(
          cluster(),
          true,
          plan,
          null,
          versions,
          state.clusterVersion(),
          null,
          null,
          Map.of(),
          List.of("dry run: nothing was touched"),
          List.of());
    }
    return new UpgradeResult(
        cluster(),
        false,
        plan,
        backup,
        versions,
        state.clusterVersion(),
        before,
        after,
        restarted,
        notes,
        ctx.progress().downTimes());
  }
}
