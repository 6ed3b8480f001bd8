package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.ServerCertificates;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The preflight check every changing runbook makes of a TLS cluster: a member whose server
 * certificate has expired, or expires within the inventory's window, refuses the change. Expired
 * certificates are among the most common etcd outages, and a runbook that restarts members would
 * turn a certificate about to expire into a member that does not come back.
 */
public final class CertificateExpiry {

  /** Runbooks started before this check shipped replay without it. */
  static final String CHANGE_ID = "certificate-expiry";

  private CertificateExpiry() {}

  /** One problem per member, naming it, the date and what to do; empty when all is well. */
  public static List<String> problems(ClusterState state) {
    return problems(state, "");
  }

  /** As {@link #problems(ClusterState)}, leaving out a member the runbook replaces. */
  public static List<String> problems(ClusterState state, String exceptMember) {
    if (Workflow.getVersion(CHANGE_ID, Workflow.DEFAULT_VERSION, 1) < 1) return List.of();
    return problems(
        state.certificates(), Instant.ofEpochMilli(Workflow.currentTimeMillis()), exceptMember);
  }

  static List<String> problems(ServerCertificates certificates, Instant now, String exceptMember) {
    if (certificates == null) return List.of();
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, String> member : certificates.notAfterByMember().entrySet()) {
      if (member.getKey().equals(exceptMember)) continue;
      Instant notAfter = Instant.parse(member.getValue());
      long days = Duration.between(now, notAfter).toDays();
      if (!notAfter.isAfter(now)) {
        problems.add(
            ("member %s's server certificate expired on %s: clients that verify it fail; renew it"
                    + " (ReconfigureTls, or by hand) before changing the cluster")
                .formatted(member.getKey(), notAfter));
      } else if (days < certificates.warningDays()) {
        problems.add(
            ("member %s's server certificate expires on %s, in %d days (within the %d-day window,"
                    + " tls.expiryWarningDays): renew it first, or a member restarted now may not"
                    + " come back once it expires")
                .formatted(member.getKey(), notAfter, days, certificates.warningDays()));
      }
    }
    return problems;
  }
}
