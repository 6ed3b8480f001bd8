package io.etcdrunbooks.activities.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.maintenance.AlarmMember;
import io.etcd.jetcd.maintenance.AlarmType;
import io.etcd.jetcd.maintenance.StatusResponse;
import io.etcd.jetcd.options.CompactOption;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.workflows.activities.MaintenanceActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityInfo;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link MaintenanceActivities} through etcd's maintenance and KV APIs (jetcd). */
public final class MaintenanceActivitiesImpl implements MaintenanceActivities {

  private static final Logger log = LoggerFactory.getLogger(MaintenanceActivitiesImpl.class);

  /** A defragmentation rewrites the whole database file: minutes for gigabytes. */
  private static final Duration DEFRAGMENT_TIMEOUT = Duration.ofMinutes(25);

  private static final Duration COMPACT_TIMEOUT = Duration.ofMinutes(5);
  private static final int NOSPACE_ROUNDS = 4;
  private static final Duration NOSPACE_ROUND_PAUSE = Duration.ofMillis(500);

  /** etcd's gauge of a defragmentation under way (3.4 and later). */
  static final String DEFRAG_IN_FLIGHT = "etcd_disk_defrag_inflight";

  /**
   * Defragmentations this worker sent whose step has not had their answer yet, by step ({@link
   * #stepKey}).
   */
  private static final Map<String, CompletableFuture<?>> IN_FLIGHT = new ConcurrentHashMap<>();

  private final ClusterTargets targets;
  private final Duration defragmentTimeout;

  public MaintenanceActivitiesImpl(ClusterTargets targets) {
    this(targets, DEFRAGMENT_TIMEOUT);
  }

  /** With another time to wait for a defragmentation's answer, for tests. */
  MaintenanceActivitiesImpl(ClusterTargets targets, Duration defragmentTimeout) {
    this.targets = targets;
    this.defragmentTimeout = defragmentTimeout;
  }

  @Override
  public MemberSpace space(MemberRef ref) {
    return withCluster(ref.cluster(), clients -> space(clients, member(clients, ref.member())));
  }

  private static MemberSpace space(EtcdClients clients, MemberSpec member) {
    StatusResponse status =
        EtcdClients.await(
            clients
                .member(member.name())
                .getMaintenanceClient()
                .statusMember(EtcdClients.target(member)),
            "status of member '" + member.name() + "'");
    // etcd before 3.4 does not report the part in use: nothing known to give back
    long inUse = status.getDbSizeInUse() > 0 ? status.getDbSizeInUse() : status.getDbSize();
    return new MemberSpace(member.name(), status.getDbSize(), inUse);
  }

  /** The part in use unchanged over this long counts as settled. */
  private static final Duration SETTLED_FOR = Duration.ofSeconds(2);

  private static final Duration SETTLE_AT_MOST = Duration.ofMinutes(2);

  @Override
  public MemberSpace settledSpace(MemberRef ref) {
    return withCluster(
        ref.cluster(),
        clients -> {
          MemberSpec member = member(clients, ref.member());
          long deadline = System.nanoTime() + SETTLE_AT_MOST.toNanos();
          MemberSpace last = space(clients, member);
          while (System.nanoTime() < deadline) {
            Heartbeats.beat("waiting for the database of " + member.name() + " to settle");
            Heartbeats.pause(SETTLED_FOR.toMillis());
            MemberSpace now = space(clients, member);
            if (now.inUseBytes() == last.inUseBytes()) return now;
            last = now;
          }
          log.info(
              "{}: {}'s database still changing after {} s; taking it as it is",
              ref.cluster(),
              member.name(),
              SETTLE_AT_MOST.toSeconds());
          return last;
        });
  }

  @Override
  public long compact(CompactRequest request) {
    return withCluster(
        request.cluster(),
        clients -> {
          try {
            EtcdClients.await(
                clients
                    .cluster()
                    .getKVClient()
                    .compact(
                        request.revision(),
                        CompactOption.builder().withCompactPhysical(true).build()),
                "compact cluster '" + request.cluster() + "' to " + request.revision(),
                COMPACT_TIMEOUT);
            log.info("{}: history compacted up to {}", request.cluster(), request.revision());
          } catch (EtcdCallException e) {
            if (e.getMessage().contains("has been compacted")) {
              log.info(
                  "{}: compacted up to {} or beyond already",
                  request.cluster(),
                  request.revision());
            } else if (e.getMessage().contains("future revision")) {
              throw FailureType.MaintenanceFailed.nonRetryable(
                  "cannot compact cluster '%s' to %d: %s"
                      .formatted(request.cluster(), request.revision(), e.getMessage()));
            } else {
              throw e;
            }
          }
          return request.revision();
        });
  }

  @Override
  public ApiServerCompaction apiServerCompaction(ClusterRef ref) {
    return withCluster(
        ref.cluster(),
        clients -> {
          List<KeyValue> kvs =
              EtcdClients.await(
                      clients
                          .cluster()
                          .getKVClient()
                          .get(ByteSequence.from(ApiServerCompaction.KEY, StandardCharsets.UTF_8)),
                      "read " + ApiServerCompaction.KEY + " of cluster '" + ref.cluster() + "'")
                  .getKvs();
          if (kvs.isEmpty()) return ApiServerCompaction.none();
          KeyValue marker = kvs.get(0);
          String value = marker.getValue().toString(StandardCharsets.UTF_8).strip();
          try {
            return new ApiServerCompaction(true, Long.parseLong(value), marker.getModRevision());
          } catch (NumberFormatException e) {
            throw FailureType.MaintenanceRefused.nonRetryable(
                "cluster '%s': %s holds '%s', not a revision: it is kube-apiserver's compaction"
                        .formatted(ref.cluster(), ApiServerCompaction.KEY, value)
                    + " marker, and nothing else should write it");
          }
        });
  }

  @Override
  public MemberSpace defragment(MemberRef ref) {
    return withCluster(
        ref.cluster(),
        clients -> {
          MemberSpec member = member(clients, ref.member());
          String what = "defragment member '" + member.name() + "'";
          String key = stepKey(ref);
          CompletableFuture<?> call = IN_FLIGHT.get(key);
          if (call != null) {
            log.info(
                "{}: {}: taking the one an earlier attempt sent ({})",
                ref.cluster(),
                what,
                call.isDone() ? "done" : "still running");
          } else if (defragmenting(clients, member)) {
            awaitOtherDefragmentation(clients, member, what);
          } else {
            call = send(clients, member, key);
          }
          if (call != null) {
            awaitBeating(call, what);
            IN_FLIGHT.remove(key, call);
          }
          MemberSpace after = space(clients, member);
          log.info(
              "{}: {} defragmented: {} bytes ({} in use)",
              ref.cluster(),
              member.name(),
              after.sizeBytes(),
              after.inUseBytes());
          return after;
        });
  }

  /**
   * Sends the defragmentation and keeps its call for the step's next attempt until an attempt has
   * its answer: a call given up on the client still runs in etcd (a retry that sent another would
   * queue a second one behind it), and one that ended meanwhile is that retry's outcome. A call
   * that failed is dropped, so that the retry sends a new one.
   */
  private static CompletableFuture<?> send(EtcdClients clients, MemberSpec member, String key) {
    CompletableFuture<?> call =
        clients
            .member(member.name())
            .getMaintenanceClient()
            .defragmentMember(EtcdClients.target(member));
    IN_FLIGHT.put(key, call);
    call.whenComplete(
        (result, failure) -> {
          if (failure != null) IN_FLIGHT.remove(key, call);
        });
    return call;
  }

  /**
   * The runbook step asking: its attempts share it, another run's step does not (a call an
   * abandoned run left behind is never another run's outcome). Outside an activity, the member.
   */
  private static String stepKey(MemberRef ref) {
    String member = ref.cluster() + "/" + ref.member();
    try {
      ActivityInfo info = Activity.getExecutionContext().getInfo();
      return member + "/" + info.getWorkflowRunId() + "/" + info.getActivityId();
    } catch (IllegalStateException | UnsupportedOperationException notInAnActivity) {
      return member;
    }
  }

  /**
   * Whether the member runs a defragmentation already (another worker's, or an SRE's), by its
   * {@value #DEFRAG_IN_FLIGHT} gauge (etcd 3.4 and later); false when it cannot tell.
   */
  private static boolean defragmenting(EtcdClients clients, MemberSpec member) {
    try {
      OptionalDouble inFlight =
          new ClusterVersionReader(clients.spec()).metric(member.clientUrl(), DEFRAG_IN_FLIGHT);
      return inFlight.isPresent() && inFlight.getAsDouble() > 0;
    } catch (IOException e) {
      log.info("{}: {} not read: {}", member.name(), DEFRAG_IN_FLIGHT, e.getMessage());
      return false;
    }
  }

  private static void awaitOtherDefragmentation(
      EtcdClients clients, MemberSpec member, String what) {
    log.info("{}: {}: one runs already in etcd; waiting for it instead", member.name(), what);
    long deadline = System.nanoTime() + DEFRAGMENT_TIMEOUT.toNanos();
    while (defragmenting(clients, member)) {
      if (System.nanoTime() > deadline) throw stillRunning(what, DEFRAGMENT_TIMEOUT);
      Heartbeats.beat(what + ": waiting for the defragmentation already running");
      Heartbeats.pause(Heartbeats.EVERY.toMillis());
    }
  }

  private static EtcdCallException stillRunning(String what, Duration waited) {
    return new EtcdCallException(
        what
            + ": no answer within "
            + waited.toSeconds()
            + " s; the defragmentation still runs in etcd, and the retry waits for it rather than"
            + " queue another",
        null);
  }

  /** Waits for a long call, heartbeating meanwhile, at most the defragmentation's timeout. */
  private void awaitBeating(CompletableFuture<?> call, String what) {
    long deadline = System.nanoTime() + defragmentTimeout.toNanos();
    while (true) {
      Heartbeats.beat(what);
      long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
      if (left <= 0) throw stillRunning(what, defragmentTimeout);
      try {
        EtcdClients.await(
            call, what, Duration.ofMillis(Math.min(left, Heartbeats.EVERY.toMillis())));
        return;
      } catch (EtcdCallException e) {
        if (!call.isDone() && e.getMessage().contains("no answer within")) continue;
        throw e;
      }
    }
  }

  private static void pause(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while disarming NOSPACE", e);
    }
  }

  @Override
  public List<String> disarmNospace(ClusterRef ref) {
    return withCluster(
        ref.cluster(),
        clients -> {
          Map<Long, String> nameById =
              new ClusterInspector(clients)
                  .memberIds().entrySet().stream()
                      .collect(Collectors.toMap(Map.Entry::getValue, Map.Entry::getKey));
          // A member's alarm list is its own applied state, not a linearizable read: an alarm
          // another member raised moments before may not be in it yet (CI: m3's disarmed, m2's
          // found by the postflight). So list and disarm again until a list shows none, a few
          // rounds apart; an alarm that keeps coming back is the postflight's to report.
          List<String> disarmed = new ArrayList<>();
          for (int round = 0; round < NOSPACE_ROUNDS; round++) {
            if (round > 0) pause(NOSPACE_ROUND_PAUSE);
            Heartbeats.beat("disarming NOSPACE, round " + (round + 1));
            List<AlarmMember> raised =
                EtcdClients.await(
                        clients.cluster().getMaintenanceClient().listAlarms(),
                        "alarms of cluster '" + ref.cluster() + "'")
                    .getAlarms()
                    .stream()
                    .filter(a -> a.getAlarmType() == AlarmType.NOSPACE)
                    .toList();
            if (raised.isEmpty() && round > 0) break;
            for (AlarmMember alarm : raised) {
              EtcdClients.await(
                  clients.cluster().getMaintenanceClient().alarmDisarm(alarm),
                  "disarm NOSPACE of member " + Long.toHexString(alarm.getMemberId()));
              String name =
                  nameById.getOrDefault(alarm.getMemberId(), Long.toHexString(alarm.getMemberId()));
              if (!disarmed.contains(name)) disarmed.add(name);
            }
          }
          log.info("{}: NOSPACE disarmed on {}", ref.cluster(), disarmed);
          return disarmed;
        });
  }

  private static MemberSpec member(EtcdClients clients, String name) {
    try {
      return clients.spec().member(name);
    } catch (IllegalArgumentException e) {
      throw FailureType.UnknownMember.nonRetryable(e.getMessage());
    }
  }

  private <T> T withCluster(String cluster, Function<EtcdClients, T> work) {
    try (EtcdClients clients = targets.clients(cluster)) {
      return work.apply(clients);
    } catch (EtcdCallException e) {
      throw FailureType.MembersUnreachable.retryable(e.getMessage(), e);
    }
  }
}
