package io.etcdrunbooks.activities.migrate;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.etcd.EtcdClients;
import io.etcdrunbooks.activities.etcd.V2Api;
import io.etcdrunbooks.activities.host.DataDirCopy;
import io.etcdrunbooks.activities.host.MemberShell;
import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.workflows.activities.MigrationActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link MigrationActivities}: the stores read through a member's v2 API and jetcd, data dirs
 * copied and migrated on the hosts over SSH.
 */
public final class MigrationActivitiesImpl implements MigrationActivities {

  private static final Logger log = LoggerFactory.getLogger(MigrationActivitiesImpl.class);
  private static final String BY_HAND = "docs/runbooks/migrate-v2-to-v3.md";

  private final ClusterTargets targets;
  private final ReleaseStore releases;

  public MigrationActivitiesImpl(ClusterTargets targets, ReleaseStore releases) {
    this.targets = targets;
    this.releases = releases;
  }

  @Override
  public StoreSurvey survey(MigrationScope scope) {
    ClusterSpec spec = targets.cluster(scope.cluster());
    V2Api v2 = new V2Api(spec);
    List<String> servedBy = new ArrayList<>();
    for (MemberSpec m : spec.members()) {
      try {
        if (v2.served(m.clientUrl())) servedBy.add(m.name());
      } catch (IOException e) {
        log.info("member {}: v2 API not read: {}", m.name(), e.getMessage());
      }
    }
    List<V2Api.Node> all = servedBy.isEmpty() ? List.of() : v2Keys(spec);
    KeyScope within = KeyScope.of(scope);
    List<V2Api.Node> keys = within.within(all);
    try (EtcdClients clients = targets.clients(spec)) {
      V3Keys v3 = V3Keys.read(clients.cluster().getKVClient());
      return new StoreSurvey(
          servedBy,
          keys.size(),
          keys.stream().filter(V2Api.Node::hasTtl).count(),
          Prefixes.count(keys.stream().map(V2Api.Node::key)),
          v3.keys().size(),
          v3.revision(),
          within.outside(all));
    }
  }

  @Override
  public String copyDataDir(MemberMigrationRequest request) {
    try (MemberShell member = offline(request)) {
      requireStopped(member, "copy its data dir");
      String copy = copyPath(member, request);
      boolean copied = DataDirCopy.copy(member, copy);
      log.info(
          "{}: data dir {} {}",
          member.host().describe(),
          copied ? "copied and checked as" : "was copied and checked already as",
          copy);
      return copy;
    }
  }

  @Override
  public void migrateMember(MemberMigrationRequest request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    try (MemberShell member = offline(request)) {
      requireStopped(member, "migrate its data dir");
      String data = member.dataDir();
      String marker = data + ".migrated-" + request.migrationId();
      String done =
          member
              .run("[ -f " + quote(marker) + " ] && echo done || true", "look for the marker")
              .stdout()
              .strip();
      if (done.equals("done")) {
        log.info("{}: migrated already ({})", member.host().describe(), marker);
        return;
      }
      String version = targets.installer(spec).installedVersion(member.host());
      if (version.isEmpty()) {
        throw ApplicationFailure.newNonRetryableFailure(
            member.host().describe() + " has no etcd installed whose etcdctl could migrate",
            "MigrateToolMissing");
      }
      String etcdctl = member.tool("etcdctl", version, releases);
      Heartbeats.beat("etcdctl migrate on " + request.member());
      member.run(
          ("set -e\n"
                  + "[ -d %s/member/wal ] || { echo 'no WAL in %s/member/wal: a member with a"
                  + " separate --wal-dir is migrated by hand (%s)' >&2; exit 5; }\n"
                  + "ETCDCTL_API=3 %s migrate --data-dir %s\n"
                  // written then renamed: a marker cut short by a full disk must not say "done"
                  + "echo %s > %s.tmp && mv %s.tmp %s\n")
              .formatted(
                  quote(data),
                  data,
                  BY_HAND,
                  quote(etcdctl),
                  quote(data),
                  quote(version),
                  quote(marker),
                  quote(marker),
                  quote(marker)),
          "run etcdctl migrate (etcd " + version + ") on " + data);
      log.info("{}: v2 store migrated with etcdctl {}", member.host().describe(), version);
    }
  }

  @Override
  public boolean copyV3Store(V3StoreCopyRequest request) {
    try (MemberShell from = offline(request.cluster(), request.from());
        MemberShell to = offline(request.cluster(), request.member())) {
      requireStopped(from, "give its v3 store to " + request.member());
      requireStopped(to, "take the v3 store of " + request.from());
      boolean copied = V3StoreCopy.copy(from, to, targets.ssh(), request.migrationId());
      log.info(
          "{}: {} the v3 store of {}",
          to.host().describe(),
          copied ? "given" : "had already",
          request.from());
      return copied;
    }
  }

  @Override
  public boolean putDataDirBack(MemberMigrationRequest request) {
    try (MemberShell member = offline(request)) {
      requireStopped(member, "put its data dir copy back");
      String data = member.dataDir();
      String copy = copyPath(member, request);
      String after = data + ".after-migrate-" + request.migrationId();
      String putBack = data + ".put-back-" + request.migrationId();
      String out =
          member
              .run(
                  "set -e\n"
                      + ("if [ -f %s ]; then echo already; exit 0; fi\n"
                              + "[ -f %s.checked ] || { echo none; exit 0; }\n"
                              // a data dir beside a kept migrated one is a copy cut short: replace
                              // it
                              + "if [ -e %s ]; then rm -rf %s; elif [ -e %s ]; then mv -T %s %s; fi\n"
                              + "cp -a %s %s\n"
                              + "rm -f %s\n"
                              + "touch %s\n"
                              + "echo put-back\n")
                          .formatted(
                              quote(putBack),
                              quote(copy),
                              quote(after),
                              quote(data),
                              quote(data),
                              quote(data),
                              quote(after),
                              quote(copy),
                              quote(data),
                              quote(data + ".migrated-" + request.migrationId()),
                              quote(putBack)),
                  "put the data dir copy " + copy + " back")
              .stdout()
              .strip();
      log.info("{}: data dir copy {}: {}", member.host().describe(), copy, out);
      return out.equals("put-back");
    }
  }

  @Override
  public LeaseReport attachLeases(MigrationScope scope) {
    ClusterSpec spec = targets.cluster(scope.cluster());
    List<V2Api.Node> nodes = v2Keys(spec);
    try (EtcdClients clients = targets.clients(spec)) {
      return new LeaseAttacher(clients.cluster()).attach(KeyScope.of(scope), nodes);
    }
  }

  @Override
  public StoreComparison compare(MigrationScope scope) {
    ClusterSpec spec = targets.cluster(scope.cluster());
    KeyScope within = KeyScope.of(scope);
    List<V2Api.Node> nodes = within.within(v2Keys(spec));
    try (EtcdClients clients = targets.clients(spec)) {
      V3Keys v3 = V3Keys.read(clients.cluster().getKVClient()).within(within);
      // read after both stores: a TTL run out by now is expired, not missing
      return StoreComparator.compare(nodes, v3, Instant.now());
    }
  }

  @Override
  public long clearV2(MigrationScope scope) {
    ClusterSpec spec = targets.cluster(scope.cluster());
    // runs started before the prefix was read clear Kubernetes' default, never the whole store
    String prefix = scope.etcdPrefix() == null ? "/registry" : scope.etcdPrefix();
    V2Api v2 = new V2Api(spec);
    for (MemberSpec m : spec.members()) {
      try {
        if (v2.readAll(m.clientUrl()).isEmpty()) continue;
        long deleted = v2.deletePrefix(m.clientUrl(), prefix);
        log.info(
            "cluster '{}': {} keys under {} deleted from the v2 store",
            spec.name(),
            deleted,
            prefix);
        return deleted;
      } catch (IOException e) {
        log.info("cluster '{}': member {}: {}", spec.name(), m.name(), e.getMessage());
      }
    }
    throw ApplicationFailure.newFailure(
        "cluster '" + spec.name() + "': no member's v2 API answered; the v2 keys are not cleared",
        FailureType.MembersUnreachable.name());
  }

  /** The v2 store's keys from the first member that serves it; fails when none answers. */
  private List<V2Api.Node> v2Keys(ClusterSpec spec) {
    V2Api v2 = new V2Api(spec);
    for (MemberSpec m : spec.members()) {
      Optional<List<V2Api.Node>> read = readV2(v2, m);
      if (read.isPresent()) return read.get();
    }
    throw ApplicationFailure.newFailure(
        "cluster '" + spec.name() + "': no member serves the v2 API",
        FailureType.MembersUnreachable.name());
  }

  private Optional<List<V2Api.Node>> readV2(V2Api v2, MemberSpec m) {
    try {
      return v2.readAll(m.clientUrl());
    } catch (IOException e) {
      log.info("member {}: v2 API not read: {}", m.name(), e.getMessage());
      return Optional.empty();
    }
  }

  private void requireStopped(MemberShell member, String what) {
    if (member.running()) {
      throw ApplicationFailure.newNonRetryableFailure(
          member.host().describe()
              + " still runs: the runbook stops it before it may "
              + what
              + "; stop it, or let the runbook run from its start",
          "MemberStillRunning");
    }
  }

  private static String copyPath(MemberShell member, MemberMigrationRequest request) {
    return member.dataDir() + ".before-migrate-" + request.migrationId();
  }

  private MemberShell offline(MemberMigrationRequest request) {
    return offline(request.cluster(), request.member());
  }

  private MemberShell offline(String cluster, String member) {
    return targets.shell(targets.cluster(cluster), member, "migrating the v2 store", BY_HAND);
  }
}
