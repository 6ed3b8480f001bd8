package io.etcdrunbooks.api.auth;

import io.micronaut.http.HttpMethod;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The role an API call needs and the cluster it acts on, from its method and path. Reads are for viewers; starting
 * upgrades, backups and member replacements, and approving, pausing, resuming and cancelling runbooks, for operators; restore and rollback (which can lose data) for admins;
 * anything else that changes something for admins too.
 *
 * @param cluster the cluster named in the path, empty when the path names a runbook or none
 * @param workflowId the runbook named in the path, empty when none
 */
public record RequiredAccess(Role role, Optional<String> cluster, Optional<String> workflowId) {

  private static final Pattern CLUSTER = Pattern.compile("^/api/v1/clusters/([^/]+)(/([^/]+))?.*$");
  private static final Pattern RUNBOOK = Pattern.compile("^/api/v1/runbooks/([^/]+)(/([^/]+))?$");

  public static RequiredAccess of(HttpMethod method, String path) {
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
