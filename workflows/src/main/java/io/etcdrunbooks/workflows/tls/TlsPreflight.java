package io.etcdrunbooks.workflows.tls;

import io.etcdrunbooks.workflows.activities.TlsActivities.CheckCertificatesRequest;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.model.MemberFlags;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.ClusterChecks;
import io.etcdrunbooks.workflows.phases.Discovery;
import io.etcdrunbooks.workflows.phases.HostAccessPreflight;
import io.etcdrunbooks.workflows.phases.Refusal;
import io.temporal.failure.ActivityFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The TLS runbook's DISCOVER, PREFLIGHT and PLAN: everything read, nothing touched. */
final class TlsPreflight {

  private TlsPreflight() {}

  static void discover(TlsRun run) {
    List<String> problems = requestProblems(run.request);
    if (!problems.isEmpty()) throw refused(run, problems);
    run.state =
        Discovery.discoverOrRefuse(
            run.ctx.activities(),
            run.ctx.progress(),
            run.cluster(),
            run.what(),
            FailureType.TlsRefused);
    run.members = run.state.members().stream().map(MemberStatus::name).toList();
    for (MemberStatus m : run.state.members()) {
      if (!m.reachable()) continue;
      MemberFlags flags =
          run.ctx
              .progress()
              .record(
                  "flags of " + m.name(),
                  () ->
                      run.ctx
                          .activities()
                          .host
                          .memberFlags(new MemberRef(run.cluster(), m.name())));
      Optional<String> cert = flags.value("--cert-file");
      Optional<String> key = flags.value("--key-file");
      if (cert.isPresent() && key.isPresent()) {
        run.files.put(m.name(), new TlsRun.Files(cert.get(), key.get()));
      }
    }
  }

  private static List<String> requestProblems(ReconfigureTlsRequest request) {
    List<String> problems = new ArrayList<>();
    if (!ReconfigureTlsRequest.ROTATE_CERTIFICATES.equals(request.mode())) {
      problems.add(
          ("mode must be %s, got '%s' (enabling TLS on an http cluster and rotating the CA are not"
                  + " built yet)")
              .formatted(ReconfigureTlsRequest.ROTATE_CERTIFICATES, request.mode()));
    }
    String dir = request.certificatesDir();
    boolean fromDir = dir != null && !dir.isBlank();
    if (fromDir == request.fromCaKey()) {
      problems.add(
          "give either certificatesDir (new certificates to put in place) or caKeyFile (the"
              + " cluster's CA key to issue them from), not both and not neither");
    } else if (fromDir && !dir.startsWith("/")) {
      problems.add(
          "certificatesDir must be an absolute directory on the worker holding <member>.crt and"
              + " <member>.key, got '%s'".formatted(dir));
    } else if (request.fromCaKey() && !request.caKeyFile().startsWith("/")) {
      problems.add(
          "caKeyFile must be an absolute path on the worker, got '%s'"
              .formatted(request.caKeyFile()));
    }
    if (request.validityDays() < 0) problems.add("validityDays must not be negative");
    if (request.memberTimeoutSeconds() < 0)
      problems.add("memberTimeoutSeconds must not be negative");
    return problems;
  }

  /** Every problem at once, or none. */
  static void run(TlsRun run) {
    List<String> problems =
        new ArrayList<>(ClusterChecks.memberProblems(run.state, "replacing certificates"));
    for (String member : run.members) {
      if (!run.files.containsKey(member)
          && run.state.member(member).map(MemberStatus::reachable).orElse(false)) {
        problems.add(
            ("member %s serves clients without TLS (no --cert-file and --key-file in its flags):"
                    + " rotate-certificates replaces certificates a member serves already")
                .formatted(member));
      }
    }
    if (problems.isEmpty()) {
      try {
        problems.addAll(
            run.ctx
                .progress()
                .record(
                    "the new certificates",
                    () ->
                        run.ctx
                            .activities()
                            .tls
                            .checkCertificates(
                                new CheckCertificatesRequest(
                                    run.cluster(),
                                    run.request.certificatesDir(),
                                    run.members,
                                    run.request.caKeyFile(),
                                    run.request.effectiveValidityDays()))));
      } catch (ActivityFailure e) {
        problems.add("the new certificates could not be checked: " + Failures.rootMessage(e));
      }
    }
    problems.addAll(
        HostAccessPreflight.problems(
            run.ctx.activities(), run.ctx.progress(), run.cluster(), List.of(), false));
    if (!problems.isEmpty()) throw refused(run, problems);
  }

  static void plan(TlsRun run) {
    run.ctx
        .progress()
        .message(
            "replace, one member at a time, the certificate and key each member serves (%s) with"
                    .formatted(run.files)
                + (run.request.fromCaKey()
                    ? " new ones issued from the CA key %s, valid %d days"
                        .formatted(run.request.caKeyFile(), run.request.effectiveValidityDays())
                    : " %s/<member>.crt and .key".formatted(run.request.certificatesDir()))
                + "; old files kept as <file>.before-%s".formatted(run.rotationId));
  }

  private static RuntimeException refused(TlsRun run, List<String> problems) {
    return Refusal.of(run.what(), problems, FailureType.TlsRefused);
  }
}
