package io.etcdrunbooks.activities.etcd;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.maintenance.StatusResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcdrunbooks.activities.host.DataDirCopy;
import io.etcdrunbooks.activities.host.MemberFence;
import io.etcdrunbooks.activities.host.MemberShell;
import io.etcdrunbooks.activities.host.SnapshotRestore;
import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.workflows.activities.RecoveryActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Recovery's own steps: one member's revision read from it alone, and its data dir copied. */
public final class RecoveryActivitiesImpl implements RecoveryActivities {

  private static final Logger log = LoggerFactory.getLogger(RecoveryActivitiesImpl.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration QUORUM_READ_TIMEOUT = Duration.ofSeconds(3);
  private static final String BY_HAND = "docs/runbooks/recover-quorum.md";

  private final ClusterTargets targets;
  private final ReleaseStore releases;

  public RecoveryActivitiesImpl(ClusterTargets targets, ReleaseStore releases) {
    this.targets = targets;
    this.releases = releases;
  }

  @Override
  public long memberRevision(MemberRef ref) {
    ClusterSpec spec = targets.cluster(ref.cluster());
    MemberSpec member = targets.member(spec, ref.member());
    try (EtcdClients clients = targets.clients(spec)) {
      StatusResponse status =
          EtcdClients.await(
              clients
                  .member(member.name())
                  .getMaintenanceClient()
                  .statusMember(EtcdClients.target(member)),
              "status of member '" + member.name() + "' at " + member.clientUrl());
      return status.getHeader().getRevision();
    } catch (EtcdCallException e) {
      throw FailureType.MembersUnreachable.retryable(e.getMessage(), e);
    }
  }

  @Override
  public List<String> quorumReads(ClusterRef ref) {
    ClusterSpec spec = targets.cluster(ref.cluster());
    List<String> answered = new ArrayList<>();
    try (EtcdClients clients = targets.clients(spec)) {
      // every member asked at once: one that waits for a quorum holds its read for the whole
      // timeout, and asked one after the other such members held each look that many times as long
      Map<String, CompletableFuture<GetResponse>> reads = new LinkedHashMap<>();
      for (MemberSpec m : spec.members())
        reads.put(
            m.name(),
            clients
                .member(m.name())
                .getKVClient()
                .get(
                    ByteSequence.from("health", StandardCharsets.UTF_8),
                    GetOption.builder().withLimit(1).withCountOnly(true).build()));
      try {
        CompletableFuture.allOf(reads.values().toArray(CompletableFuture[]::new))
            .get(QUORUM_READ_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException | ExecutionException e) {
        // each read is looked at below
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw FailureType.MembersUnreachable.retryable("interrupted while reading", e);
      }
      reads.forEach(
          (member, read) -> {
            String why;
            if (read.isDone()) {
              try {
                EtcdClients.await(read, "linearizable read through " + member);
                answered.add(member);
                return;
              } catch (EtcdCallException e) {
                why = e.getMessage();
              }
            } else {
              read.cancel(true);
              why = "no answer within " + QUORUM_READ_TIMEOUT.toSeconds() + " s";
            }
            log.info("cluster '{}': no quorum read through {}: {}", spec.name(), member, why);
          });
    }
    return answered;
  }

  @Override
  public long dataDirRevision(DataDirRevisionRequest request) {
    try (MemberShell member = shell(targets.cluster(request.cluster()), request.member())) {
      boolean etcdutl = EtcdVersion.parse(request.version()).shipsEtcdutl();
      String tool = member.tool(etcdutl ? "etcdutl" : "etcdctl", request.version(), releases);
      String db = member.dataDir() + "/member/snap/db";
      String copy = member.stagingDir() + "/db";
      // a copy: the running etcd holds the database's lock, and nothing is written without quorum
      String out =
          member
              .run(
                  ("[ -f %s ] || { echo none; exit 0; }\n"
                          + "cp %s %s && ETCDCTL_API=3 %s snapshot status %s -w json")
                      .formatted(quote(db), quote(db), quote(copy), quote(tool), quote(copy)),
                  "read the revision in " + db)
              .stdout()
              .strip();
      if (out.equals("none")) return -1;
      try {
        long revision = JSON.readTree(out).get("revision").asLong();
        log.info("{}: data dir {} holds revision {}", member.host().describe(), db, revision);
        return revision;
      } catch (IOException | RuntimeException e) {
        throw ApplicationFailure.newNonRetryableFailure(
            "%s: %s snapshot status printed no revision: %s"
                .formatted(member.host().describe(), tool, MemberShell.tail(out)),
            "DataDirUnreadable");
      }
    }
  }

  @Override
  public String copyDataDir(RecoveryMemberRequest request) {
    try (MemberShell member = shell(targets.cluster(request.cluster()), request.member())) {
      if (member.running()) {
        throw ApplicationFailure.newNonRetryableFailure(
            member.host().describe()
                + " still runs: the runbook stops it before it copies its data dir; stop it, or"
                + " let the runbook run from its start",
            "MemberStillRunning");
      }
      String copy = copyPath(member, request.recoveryId());
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
  public long restoreSurvivor(RestoreSurvivorRequest request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    try (MemberShell member = shell(spec, request.member())) {
      String dataDir = member.dataDir();
      String marker = dataDir + ".restored-" + request.recoveryId();
      String done =
          member
              .run(
                  "if [ -f %s ]; then cat %s; fi".formatted(quote(marker), quote(marker)),
                  "look for an earlier rebuild")
              .stdout()
              .strip();
      if (!done.isEmpty()) {
        log.info("{}: rebuilt already for {}", member.host().describe(), request.recoveryId());
        return Long.parseLong(done);
      }
      if (member.running()) {
        throw ApplicationFailure.newNonRetryableFailure(
            member.host().describe()
                + " still runs: the runbook stops it and copies its data dir before it rebuilds"
                + " it; stop it, or let the runbook run from its start",
            "MemberStillRunning");
      }
      String db = copyPath(member, request.recoveryId()) + "/member/snap/db";
      String tool =
          request.ownTool()
              ? member.tool("etcdutl", request.toolVersion(), releases)
              : member.broughtTool("etcdutl", request.toolVersion(), releases);
      // made beside the data dir and moved in whole: a restore that fails leaves the data dir
      String fresh = dataDir + ".rebuilding-" + request.recoveryId();
      MemberSpec m = member.host().member();
      member.run(
          "set -e\n"
              + ("[ -f %s ] || { echo 'no database in the data dir copy: %s' >&2; exit 3; }\n"
                      + "rm -rf %s\n")
                  .formatted(quote(db), db, quote(fresh))
              + SnapshotRestore.command(
                  tool,
                  db,
                  true,
                  m,
                  m.name() + "=" + m.peerUrl(),
                  spec.name() + "-" + request.recoveryId(),
                  fresh,
                  request.revisionBump())
              + "chmod 700 %s\nrm -rf %s\nmv -T %s %s\n"
                  .formatted(quote(fresh), quote(dataDir), quote(fresh), quote(dataDir))
              + SnapshotRestore.owner(targets.ssh(), spec, member.host(), dataDir)
              + "echo %d > %s\n".formatted(request.revisionBump(), quote(marker)),
          "rebuild the data dir from " + db + " with etcdutl " + request.toolVersion());
      log.info(
          "{}: data dir rebuilt as a cluster of one from {} with etcdutl {}, revision raised by {}",
          member.host().describe(),
          db,
          request.toolVersion(),
          request.revisionBump());
      return request.revisionBump();
    }
  }

  private static String copyPath(MemberShell member, String recoveryId) {
    return member.dataDir() + ".before-recover-" + recoveryId;
  }

  @Override
  public String fenceMember(FenceMemberRequest request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    MemberSpec member = targets.member(spec, request.member());
    String done =
        new MemberFence(targets.ssh()).fence(spec, member, request.recoveryId(), request.disable());
    log.info("fenced: {}", done);
    return done;
  }

  private MemberShell shell(ClusterSpec spec, String member) {
    return targets.shell(spec, member, "recovering quorum", BY_HAND);
  }
}
