package io.etcdrunbooks.api.auth;

import io.micronaut.http.HttpMethod;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The role an API call needs and the cluster it acts on, from its method and path. Reads are for viewers; starting
 * upgrades, backups and member replacements, and approving, pausing, resuming and cancelling runbooks, for operators;
 * restore and rollback (which can lose data) for admins; anything else that changes something for admins too.
 * Encoding and decoding Temporal payloads (the codec endpoint the Temporal Web UI calls to show a history) is reading
 * status, so for viewers; but the payloads may be of any cluster's runbooks, so only for tokens that may act on every
 * cluster.
 *
 * @param cluster the cluster named in the path, empty when the path names a runbook or none
 * @param workflowId the runbook named in the path, empty when none
 * @param everyCluster the call can reach the data of any cluster, so a token limited to some clusters may not make it
 */
public record RequiredAccess(Role role, Optional<String> cluster, Optional<String> workflowId, boolean everyCluster) {

  private static final Pattern CLUSTER = Pattern.compile("^/api/v1/clusters/([^/]+)(/([^/]+))?.*$");
  private static final Pattern RUNBOOK = Pattern.compile("^/api/v1/runbooks/([^/]+)(/([^/]+))?$");
  private static final Pattern CODEC = Pattern.compile("^/api/v1/codec/(encode|decode)$");

  public RequiredAccess(Role role, Optional<String> cluster, Optional<String> workflowId) {
    this(role, cluster, workflowId, false);
  }

  public static RequiredAccess of(HttpMethod method, String path) {
    if (method == HttpMethod.POST && CODEC.matcher(path).matches()) {
      return new RequiredAccess(Role.VIEWER, Optional.empty(), Optional.empty(), true);
    }
    Matcher c = CLUSTER.matcher(path);
    Matcher r = RUNBOOK.matcher(path);
    Optional<String> cluster = c.matches() ? Optional.of(c.group(1)) : Optional.empty();
    Optional<String> runbook = r.matches() ? Optional.of(r.group(1)) : Optional.empty();
    if (method == HttpMethod.GET || method == HttpMethod.HEAD) return new RequiredAccess(Role.VIEWER, cluster, runbook);
    String action = c.matches() ? c.group(3) : r.matches() ? r.group(3) : null;
    Role role = switch (action == null ? "" : action) {
      case "upgrade", "replace-member", "backup", "backup-schedule", "approve", "pause", "resume", "cancel" -> Role.OPERATOR;
      default -> Role.ADMIN; // restore, rollback, and whatever is added later until it is placed here
    };
    return new RequiredAccess(role, cluster, runbook);
  }
}
