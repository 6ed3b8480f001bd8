package io.etcdrunbooks.api;

import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.workflows.activities.EtcdActivities;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.ClusterChecks;
import io.etcdrunbooks.workflows.recover.RecoverQuorumRequest;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberRequest;
import io.etcdrunbooks.workflows.replacemember.ReplacementPreflight;
import io.etcdrunbooks.workflows.scale.ScaleClusterRequest;
import io.etcdrunbooks.workflows.scale.ScalePlanning;
import io.etcdrunbooks.workflows.upgrade.OlderTarget;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the API can tell from the request, the inventory and the cluster as it is now, before a
 * runbook is started, so that a request its preflight would refuse gets a 4xx and leaves nothing in
 * Temporal: new members' count and placements (400), a new member's host that refuses SSH
 * connections and the cluster's state (409). The runbook's preflight stays the authority: when the
 * cluster cannot be read in time here, the request goes on and the preflight decides.
 */
@Singleton
public final class StartChecks {

  private static final Logger LOG = LoggerFactory.getLogger(StartChecks.class);
  private static final long DISCOVER_SECONDS = 10;
  private static final int SSH_CONNECT_MILLIS = 2000;

  /** Backup ids are plain file names, as the backup runbook makes them. */
  private static final Pattern BACKUP_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  private final EtcdActivities etcd;

  public StartChecks(EtcdActivities etcd) {
    this.etcd = etcd;
  }

  /** The cluster now, or empty when it cannot be read within a few seconds. */
  public Optional<ClusterState> discover(String cluster) {
    CompletableFuture<ClusterState> state =
        CompletableFuture.supplyAsync(() -> etcd.discover(new ClusterRef(cluster)));
    try {
      return Optional.of(state.get(DISCOVER_SECONDS, TimeUnit.SECONDS));
    } catch (TimeoutException | ExecutionException e) {
      state.cancel(true);
      LOG.info(
          "cluster {} could not be read before starting a runbook ({}); its preflight decides",
          cluster,
          e.getClass().getSimpleName());
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  /**
   * An upgrade to {@code target}: every member up and healthy, and the target newer than what runs.
   */
  public void upgrade(String cluster, EtcdVersion target) {
    discover(cluster)
        .ifPresent(
            state -> {
              List<String> problems = ClusterChecks.memberProblems(state);
              if (!problems.isEmpty()) throw refused("upgrade of " + cluster, problems);
              String running = ClusterChecks.runningVersion(state);
              if (running.isEmpty()) return;
              EtcdVersion runs = EtcdVersion.parse("running version", running);
              int order = target.compareTo(runs);
              if (order == 0
                  && state.members().stream()
                      .allMatch(m -> target.toString().equals(m.serverVersion()))) {
                throw refused(
                    "upgrade of " + cluster,
                    List.of("every member already runs " + target + "; nothing to upgrade"));
              }
              if (order < 0) {
                throw refused(
                    "upgrade of " + cluster, List.of(OlderTarget.refusal(cluster, runs, target)));
              }
            });
  }

  /** A member replacement: the member must not be healthy unless {@code force}. */
  public void replaceMember(String cluster, String member, boolean force) {
    if (force) return;
    discover(cluster)
        .flatMap(state -> state.member(member))
        .filter(MemberStatus::healthy)
        .ifPresent(
            m -> {
              throw refused(
                  "replacement of " + member + " in " + cluster,
                  List.of(
                      "member "
                          + member
                          + " is healthy (etcd "
                          + m.serverVersion()
                          + "); replacing it would take a working member out of the cluster. If it must go anyway"
                          + " (a failing disk, say), send \"force\": true"));
            });
  }

  /**
   * A rollback to {@code toVersion}: once the cluster version is past it, only by a restore,
   * acknowledged.
   */
  public void rollback(String cluster, String toVersion, boolean acknowledgeDataLoss) {
    if (acknowledgeDataLoss || toVersion == null || toVersion.isBlank()) return;
    discover(cluster)
        .map(ClusterState::clusterVersion)
        .filter(
            clusterVersion ->
                EtcdVersion.find(clusterVersion)
                    .filter(c -> c.minorAbove(EtcdVersion.parse("toVersion", toVersion)))
                    .isPresent())
        .ifPresent(
            clusterVersion -> {
              throw refused(
                  "rollback of " + cluster + " to " + toVersion,
                  List.of(
                      "the cluster version is already "
                          + clusterVersion
                          + ", past "
                          + toVersion
                          + ": etcd cannot run older members any more. The only way back is"
                          + " restoring the pre-upgrade backup with "
                          + toVersion
                          + "'s binaries, which loses every write made since"
                          + " that backup: send \"acknowledgeDataLoss\": true (and backupId) to do that"));
            });
  }

  /**
   * A scaling whose new members the inventory already shows to be wrong (400): too few or too many
   * for the target size, or on URLs inventory members use. Not a dry run: a new member's host must
   * take SSH connections (409).
   */
  public void scale(ClusterSpec cluster, ScaleClusterRequest request) {
    List<MemberPlacement> inventory = placements(cluster);
    List<String> problems = ScalePlanning.inventoryProblems(request, inventory);
    if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("; ", problems));
    if (request.dryRun()) return;
    List<MemberPlacement> added =
        request.newMembers().stream().filter(m -> cluster.findMember(m.name()).isEmpty()).toList();
    hostsTakeSsh("scaling of " + cluster.name(), cluster, added);
  }

  /**
   * A replacement on another host: complete and on URLs no other inventory member uses (400), its
   * host taking SSH connections when it is not a dry run (409).
   */
  public void replaceMember(ClusterSpec cluster, ReplaceMemberRequest request) {
    List<String> problems = new ArrayList<>(ReplacementPreflight.inputProblems(request));
    MemberPlacement requested = request.replacement();
    if (problems.isEmpty() && requested != null) {
      MemberPlacement failed = cluster.member(request.failedMember()).placement();
      problems.addAll(
          ReplacementPreflight.urlClashes(
              placements(cluster),
              failed,
              ReplacementPreflight.complete(failed, requested, requested.name())));
    }
    if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("; ", problems));
    if (!request.dryRun() && requested != null && !blank(requested.host()))
      hostsTakeSsh(
          "replacement of " + request.failedMember() + " in " + cluster.name(),
          cluster,
          List.of(requested));
  }

  /**
   * A recovery whose survivor or replacements the inventory does not have, or whose replacement
   * placements are incomplete or on URLs other members use (400); the replacements' hosts taking
   * SSH connections when it is not a dry run (409).
   */
  public void recoverQuorum(ClusterSpec cluster, RecoverQuorumRequest request) {
    List<MemberPlacement> inventory = placements(cluster);
    List<String> problems = new ArrayList<>(request.problems());
    problems.addAll(request.inventoryProblems(inventory));
    if (problems.isEmpty()) {
      request
          .replacements()
          .forEach(
              (lost, requested) -> {
                MemberPlacement failed = cluster.member(lost).placement();
                problems.addAll(
                    ReplacementPreflight.urlClashes(
                        inventory,
                        failed,
                        ReplacementPreflight.complete(failed, requested, requested.name())));
              });
    }
    if (!problems.isEmpty()) throw new IllegalArgumentException(String.join("; ", problems));
    if (!request.dryRun())
      hostsTakeSsh(
          "recovery of " + cluster.name(), cluster, List.copyOf(request.replacements().values()));
  }

  /**
   * Every new member's host must take TCP connections on its SSH port. Only a refused connection
   * refuses the start (the host answers, nothing listens): a timeout or a name this host cannot
   * resolve may be this API host's view of the network, not the worker's, so the preflight decides.
   */
  private void hostsTakeSsh(String what, ClusterSpec cluster, List<MemberPlacement> members) {
    List<CompletableFuture<Optional<String>>> probes =
        members.stream()
            .map(m -> CompletableFuture.supplyAsync(() -> sshRefused(cluster, m)))
            .toList();
    List<String> problems =
        probes.stream().map(CompletableFuture::join).flatMap(Optional::stream).toList();
    if (!problems.isEmpty()) throw refused(what, problems);
  }

  private static Optional<String> sshRefused(ClusterSpec cluster, MemberPlacement member) {
    int port =
        member.sshPort() > 0
            ? member.sshPort()
            : cluster.ssh() != null && cluster.ssh().port() > 0 ? cluster.ssh().port() : 22;
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(member.host(), port), SSH_CONNECT_MILLIS);
      return Optional.empty();
    } catch (ConnectException e) {
      return Optional.of(
          ("new member %s: host %s refuses connections on its SSH port %d, so the worker cannot"
                  + " install or start etcd there. Start sshd on it, or fix the host or sshPort"
                  + " of the placement")
              .formatted(member.name(), member.host(), port));
    } catch (IOException | IllegalArgumentException e) {
      LOG.info(
          "host {} port {} not reached before starting a runbook ({}); its preflight decides",
          member.host(),
          port,
          e.getClass().getSimpleName());
      return Optional.empty();
    }
  }

  private static List<MemberPlacement> placements(ClusterSpec cluster) {
    return cluster.members().stream().map(MemberSpec::placement).toList();
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  /** A backup id names a file in the cluster's backup directory: a plain name, never a path. */
  public static void backupId(String field, String id) {
    if (id == null || id.isBlank() || id.equals("latest")) return;
    if (!BACKUP_ID.matcher(id).matches()) {
      throw new IllegalArgumentException(
          field
              + " must be a backup id as the backup runbook makes them (letters, digits,"
              + " '.', '_', '-'; no '/' or '..'), or \"latest\"; got '"
              + id
              + "'");
    }
  }

  private static RunbookRefused refused(String what, List<String> problems) {
    return new RunbookRefused(
        what + " refused, nothing was started:\n  - " + String.join("\n  - ", problems));
  }

  /**
   * The cluster's state now forbids the request (409): the message says what to do first. An
   * IllegalArgumentException, so that the Slack command and the Alertmanager webhook, which report
   * those as refusals, report it so too.
   */
  public static final class RunbookRefused extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    RunbookRefused(String message) {
      super(message);
    }
  }
}
