package io.etcdrunbooks.activities.etcd;

import com.fasterxml.jackson.databind.JsonNode;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.activities.support.WaitDeadline;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.workflows.activities.DowngradeActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.ClusterRef;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link DowngradeActivities} through etcd's gRPC gateway ({@link DowngradeGateway}). */
public final class DowngradeActivitiesImpl implements DowngradeActivities {

  private static final Logger log = LoggerFactory.getLogger(DowngradeActivitiesImpl.class);
  private static final long POLL_MILLIS = 500;

  private final ClusterTargets targets;

  public DowngradeActivitiesImpl(ClusterTargets targets) {
    this.targets = targets;
  }

  @Override
  public DowngradeStatus status(ClusterRef cluster) {
    ClusterSpec spec = targets.cluster(cluster.cluster());
    return read(spec, new DowngradeGateway(spec), new ArrayList<>());
  }

  @Override
  public void validate(DowngradeTarget request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    call(spec, new DowngradeGateway(spec), "VALIDATE", request.minorVersion());
  }

  @Override
  public boolean enable(DowngradeTarget request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    DowngradeGateway gateway = new DowngradeGateway(spec);
    if (read(spec, gateway, new ArrayList<>()).enabledTo(request.minorVersion())) return false;
    String cluster = call(spec, gateway, "ENABLE", request.minorVersion());
    log.info(
        "{}: downgrade to {} enabled; cluster version {}",
        spec.name(),
        request.minorVersion(),
        cluster);
    return true;
  }

  @Override
  public boolean cancel(ClusterRef ref) {
    ClusterSpec spec = targets.cluster(ref.cluster());
    DowngradeGateway gateway = new DowngradeGateway(spec);
    // etcd 3.6 answers a cancel with no downgrade in flight without an error: ask first
    if (!read(spec, gateway, new ArrayList<>()).enabled()) return false;
    call(spec, gateway, "CANCEL", "");
    log.info("{}: downgrade cancelled", spec.name());
    return true;
  }

  @Override
  public DowngradeStatus awaitStorageVersion(StorageVersionWait request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    DowngradeGateway gateway = new DowngradeGateway(spec);
    String wanted = request.minorVersion() + ".0";
    WaitDeadline deadline = WaitDeadline.afterSeconds(request.timeoutSeconds());
    while (true) {
      List<String> unread = new ArrayList<>();
      DowngradeStatus status = read(spec, gateway, unread);
      boolean reached =
          unread.isEmpty()
              && status.storageVersions().values().stream().allMatch(wanted::equals)
              && !(request.downgradeEnded() && status.enabled());
      if (reached) return status;
      if (deadline.passed()) {
        throw FailureType.StorageVersionNotReached.nonRetryable(
            ("cluster '%s': the storage version did not reach %s%s within %d s; members report"
                    + " %s%s%s. etcd's leader moves it after the cluster version and ends the"
                    + " downgrade once every member runs the target: check the leader's log")
                .formatted(
                    spec.name(),
                    wanted,
                    request.downgradeEnded() ? " with the downgrade ended" : "",
                    request.timeoutSeconds(),
                    status.storageVersions(),
                    status.enabled()
                        ? ", downgrade to " + status.targetVersion() + " still on"
                        : "",
                    unread.isEmpty() ? "" : ", unread: " + unread));
      }
      Heartbeats.beat("storage versions " + status.storageVersions() + " unread " + unread);
      Heartbeats.pause(POLL_MILLIS);
    }
  }

  /** Every member's status; members that did not answer are named in {@code unread}. */
  private static DowngradeStatus read(
      ClusterSpec spec, DowngradeGateway gateway, List<String> unread) {
    Map<String, String> storage = new LinkedHashMap<>();
    boolean enabled = false;
    String target = "";
    for (MemberSpec member : spec.members()) {
      try {
        JsonNode status = gateway.status(member.clientUrl());
        String version = status.path("storageVersion").asText("");
        if (!version.isEmpty()) storage.put(member.name(), version);
        JsonNode info = status.path("downgradeInfo");
        if (info.path("enabled").asBoolean(false)) {
          enabled = true;
          target = info.path("targetVersion").asText("");
        }
      } catch (IOException | DowngradeGateway.Refused e) {
        unread.add(member.name() + ": " + e.getMessage());
      }
    }
    if (unread.size() == spec.members().size()) {
      throw FailureType.MembersUnreachable.retryable(
          "no member of cluster '" + spec.name() + "' answers a status request: " + unread, null);
    }
    return new DowngradeStatus(enabled, target, storage);
  }

  /**
   * One downgrade call, sent to the first member that answers; etcd's refusal is non-retryable
   * (DowngradeRefused, with etcd's reason), an error of another kind is retried.
   */
  private static String call(
      ClusterSpec spec, DowngradeGateway gateway, String action, String version) {
    List<String> errors = new ArrayList<>();
    for (MemberSpec member : spec.members()) {
      try {
        return gateway.downgrade(member.clientUrl(), action, version);
      } catch (DowngradeGateway.Refused e) {
        if (e.getMessage().contains("downgrade")) {
          throw FailureType.DowngradeRefused.nonRetryable(
              "etcd refused downgrade %s %s: %s"
                  .formatted(action.toLowerCase(), version, e.getMessage()));
        }
        errors.add(member.name() + ": " + e.getMessage());
      } catch (IOException e) {
        errors.add(member.name() + ": " + e.getMessage());
      }
    }
    throw FailureType.MembersUnreachable.retryable(
        "downgrade %s %s on cluster '%s': %s"
            .formatted(action.toLowerCase(), version, spec.name(), errors),
        null);
  }
}
