package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.ServerCertificates;
import io.temporal.workflow.Workflow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The preflight check every changing runbook makes of a TLS cluster: a member whose server
 * certificate has expired, or expires within the inventory's window, refuses the change. Expired
 * certificates are among the most common etcd outages, and a runbook that restarts members would
 * turn a certificate about to expire into a member that does not come back.
 */
public final class CertificateExpiry {

  private CertificateExpiry() {}

  /** One problem per member, naming it, the date and what to do; empty when all is well. */
  public static List<String> problems(ClusterState state) {
    return problems(state, "");
  }

  /** As {@link #problems(ClusterState)}, leaving out a member the runbook replaces. */
  public static List<String> problems(ClusterState state, String exceptMember) {
    if (!PhasePatches.CERTIFICATE_EXPIRY.applies()) return List.of();
    return problems(
        state.certificates(), Instant.ofEpochMilli(Workflow.currentTimeMillis()), exceptMember);
  }

  static List<String> problems(ServerCertificates certificates, Instant now, String exceptMember) {
    if (certificates == null) return List.of();
    List<String> problems = new ArrayList<>();
    Map<String, String> server = certificates.notAfterByMember();
    for (Map.Entry<String, String> member : server.entrySet()) {
      if (member.getKey().equals(exceptMember)) continue;
      boolean samePeer =
          member.getValue().equals(certificates.peerNotAfterByMember().get(member.getKey()));
      problem(
              member.getKey(),
              samePeer ? SERVER_AND_PEER : SERVER,
              member.getValue(),
              now,
              certificates.warningDays())
          .ifPresent(problems::add);
    }
    for (Map.Entry<String, String> member : certificates.peerNotAfterByMember().entrySet()) {
      if (member.getKey().equals(exceptMember)
          || member.getValue().equals(server.get(member.getKey()))) continue;
      problem(member.getKey(), PEER, member.getValue(), now, certificates.warningDays())
          .ifPresent(problems::add);
    }
    return problems;
  }

  private static final String SERVER = "server certificate";
  private static final String PEER = "peer certificate";
  private static final String SERVER_AND_PEER = "server and peer certificate";

  private static Optional<String> problem(
      String member, String which, String notAfterText, Instant now, int warningDays) {
    Instant notAfter = Instant.parse(notAfterText);
    long days = Duration.between(now, notAfter).toDays();
    String whoFails = which.equals(PEER) ? "its peers refuse it" : "clients that verify it fail";
    if (!notAfter.isAfter(now)) {
      return Optional.of(
          ("member %s's %s expired on %s: %s; renew it (ReconfigureTls, or by hand) before"
                  + " changing the cluster")
              .formatted(member, which, notAfter, whoFails));
    }
    if (days < warningDays) {
      return Optional.of(
          ("member %s's %s expires on %s, in %d days (within the %d-day window,"
                  + " tls.expiryWarningDays): renew it first, or a member restarted now may not"
                  + " come back once it expires")
              .formatted(member, which, notAfter, days, warningDays));
    }
    return Optional.empty();
  }
}
