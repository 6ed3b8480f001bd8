package io.etcdrunbooks.workflows.tls;

import io.etcdrunbooks.workflows.activities.HostActivities.SetMemberFlagsRequest;
import io.etcdrunbooks.workflows.activities.TlsActivities.CheckCertificatesRequest;
import io.etcdrunbooks.workflows.activities.TlsActivities.OtherCertificatesRequest;
import io.etcdrunbooks.workflows.activities.TlsActivities.PresentedCertificate;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.model.ClientTls;
import io.etcdrunbooks.workflows.model.MemberFlags;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.model.MemberStatus;
import io.etcdrunbooks.workflows.phases.ClusterChecks;
import io.etcdrunbooks.workflows.phases.Discovery;
import io.etcdrunbooks.workflows.phases.HostAccessPreflight;
import io.etcdrunbooks.workflows.phases.Refusal;
import io.temporal.failure.ActivityFailure;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** The TLS runbook's DISCOVER, PREFLIGHT and PLAN: everything read, nothing touched. */
final class TlsPreflight {

  private TlsPreflight() {}

  static void discover(TlsRun run) {
    List<String> problems = requestProblems(run.request);
    if (!problems.isEmpty()) throw refused(run, problems);
    if (run.request.emergency()) {
      discoverInOutage(run);
      return;
    }
    run.state =
        Discovery.discoverOrRefuse(
            run.ctx.activities(),
            run.ctx.progress(),
            run.cluster(),
            run.what(),
            FailureType.TlsRefused);
    run.members = run.state.members().stream().map(MemberStatus::name).toList();
    if (run.rotatingCa()) {
      run.inventoryTls =
          run.ctx
              .progress()
              .record(
                  "the worker's TLS in the inventory",
                  () -> run.ctx.activities().inventory.clientTls(run.ctx.ref()));
    }
    if (run.enabling()) {
      for (MemberPlacement p :
          run.ctx
              .progress()
              .record(
                  "members in the inventory",
                  () -> run.ctx.activities().inventory.members(run.ctx.ref()))) {
        run.placements.put(p.name(), p);
      }
    }
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
      run.flags.put(m.name(), flags);
      Optional<String> cert = flags.value("--cert-file");
      Optional<String> key = flags.value("--key-file");
      if (cert.isPresent() && key.isPresent()) {
        run.files.put(m.name(), new TlsRun.Files(cert.get(), key.get()));
      }
    }
  }

  /**
   * Emergency: etcd is not asked (with expired certificates no member answers); the members are the
   * inventory's, each one's files read from its flags on its host.
   */
  private static void discoverInOutage(TlsRun run) {
    List<MemberPlacement> placements =
        run.ctx
            .progress()
            .record(
                "members in the inventory",
                () -> run.ctx.activities().inventory.members(run.ctx.ref()));
    run.members = placements.stream().map(MemberPlacement::name).toList();
    for (String member : run.members) {
      MemberFlags flags =
          run.ctx
              .progress()
              .record(
                  "flags of " + member,
                  () ->
                      run.ctx.activities().host.memberFlags(new MemberRef(run.cluster(), member)));
      run.flags.put(member, flags);
      Optional<String> cert = flags.value("--cert-file");
      Optional<String> key = flags.value("--key-file");
      if (cert.isPresent() && key.isPresent()) {
        run.files.put(member, new TlsRun.Files(cert.get(), key.get()));
      }
    }
  }

  private static List<String> requestProblems(ReconfigureTlsRequest request) {
    List<String> problems = new ArrayList<>();
    if (request.emergency() && !ReconfigureTlsRequest.ROTATE_CERTIFICATES.equals(request.mode())) {
      problems.add(
          "emergency is for mode %s (certificates that expired), not %s"
              .formatted(ReconfigureTlsRequest.ROTATE_CERTIFICATES, request.mode()));
    }
    if (ReconfigureTlsRequest.ENABLE.equals(request.mode())) {
      problems.addAll(enableProblems(request.enable()));
    } else if (ReconfigureTlsRequest.ROTATE_CA.equals(request.mode())) {
      RotateCa newCa = request.rotateCa();
      if (newCa == null) {
        problems.add(
            "mode rotate-ca needs \"rotateCa\": {\"caFile\", \"clientCertFile\","
                + " \"clientKeyFile\"}: the new CA and the worker's certificate from it");
      } else {
        absolute(problems, "rotateCa.caFile", newCa.caFile(), true);
        absolute(problems, "rotateCa.clientCertFile", newCa.clientCertFile(), true);
        absolute(problems, "rotateCa.clientKeyFile", newCa.clientKeyFile(), true);
      }
    } else if (!ReconfigureTlsRequest.ROTATE_CERTIFICATES.equals(request.mode())) {
      problems.add(
          "mode must be %s, %s or %s, got '%s'"
              .formatted(
                  ReconfigureTlsRequest.ROTATE_CERTIFICATES,
                  ReconfigureTlsRequest.ENABLE,
                  ReconfigureTlsRequest.ROTATE_CA,
                  request.mode()));
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

  private static List<String> enableProblems(EnableTls enable) {
    if (enable == null) {
      return List.of(
          "mode enable needs \"enable\": {\"urls\", \"caFile\", \"clientCertFile\","
              + " \"clientKeyFile\"}: which URLs move to TLS, the CA, and the worker's client"
              + " certificate");
    }
    List<String> problems = new ArrayList<>();
    if (!List.of(EnableTls.CLIENT, EnableTls.PEER, EnableTls.BOTH)
        .contains(enable.effectiveUrls())) {
      problems.add("enable.urls must be client, peer or both, got '%s'".formatted(enable.urls()));
    }
    absolute(problems, "enable.caFile", enable.caFile(), true);
    absolute(problems, "enable.clientCertFile", enable.clientCertFile(), enable.coversClients());
    absolute(problems, "enable.clientKeyFile", enable.clientKeyFile(), enable.coversClients());
    absolute(problems, "enable.memberPkiDir", enable.memberPkiDir(), false);
    absolute(problems, "enable.apiServerPkiDir", enable.apiServerPkiDir(), false);
    return problems;
  }

  private static void absolute(List<String> problems, String field, String path, boolean needed) {
    if (path == null || path.isBlank()) {
      if (needed) problems.add(field + " is required");
    } else if (!path.startsWith("/")) {
      problems.add(field + " must be an absolute path, got '" + path + "'");
    }
  }

  /** Every problem at once, or none. */
  static void run(TlsRun run) {
    if (run.enabling()) {
      runEnable(run);
      return;
    }
    if (run.rotatingCa()) {
      runRotateCa(run);
      return;
    }
    List<String> problems =
        run.emergency()
            ? new ArrayList<>()
            : new ArrayList<>(ClusterChecks.memberProblems(run.state, "replacing certificates"));
    for (String member : run.members) {
      if (!run.files.containsKey(member)
          && (run.emergency()
              || run.state.member(member).map(MemberStatus::reachable).orElse(false))) {
        problems.add(
            ("member %s serves clients without TLS (no --cert-file and --key-file in its flags):"
                    + " rotate-certificates replaces certificates a member serves already")
                .formatted(member));
      }
    }
    if (TlsPatches.REFUSE_UNROTATED.applies()) {
      problems.addAll(unrotated(run));
    }
    if (problems.isEmpty()) {
      problems.addAll(
          certificateProblems(
              run, "the new certificates", new CertificateUse(null, null, false, false)));
    }
    problems.addAll(
        HostAccessPreflight.problems(
            run.ctx.activities(), run.ctx.progress(), run.cluster(), List.of(), false));
    if (!problems.isEmpty()) throw refused(run, problems);
  }

  private static void runRotateCa(TlsRun run) {
    List<String> problems =
        new ArrayList<>(ClusterChecks.memberProblems(run.state, "rotating the CA"));
    if (run.inventoryTls == null || run.inventoryTls.caFile() == null) {
      problems.add(
          "cluster %s has no tls.caFile in the inventory: rotate-ca moves a TLS cluster to a new"
                  .formatted(run.cluster())
              + " CA (enable TLS first)");
    }
    boolean peers = false;
    boolean renews = renewsPresented(run);
    for (String member : run.members) {
      MemberFlags flags = run.flags.get(member);
      if (flags == null) continue;
      if (!run.files.containsKey(member) || flags.value("--trusted-ca-file").isEmpty()) {
        problems.add(
            "member %s does not serve clients with TLS and client certificates (--cert-file,"
                    .formatted(member)
                + " --key-file, --trusted-ca-file): rotate-ca moves a TLS cluster to a new CA");
        continue;
      }
      Optional<String> peerCert = flags.value("--peer-cert-file");
      if (peerCert.isPresent()) {
        peers = true;
        if (!renews && !peerCert.get().equals(run.files.get(member).certFile())) {
          problems.add(
              ("member %s has a peer certificate of its own (%s): rotate-ca re-issues one"
                      + " certificate per member, serving clients and peers; rotate that one by"
                      + " hand")
                  .formatted(member, peerCert.get()));
        }
      }
    }
    if (renews && problems.isEmpty()) {
      // kube-apiserver's client certificate from the new CA is placed beside the old one instead
      problems.addAll(
          keepToRenew(
              run,
              presented(run, problems).stream()
                  .filter(c -> !c.use().equals(PresentedCertificate.APISERVER_CLIENT))
                  .toList()));
    }
    List<String> controlPlane = run.ctx.activities().apiServer.controlPlaneHosts(run.ctx.ref());
    if (problems.isEmpty()) {
      problems.addAll(flagFilesProblems(run, "--trusted-ca-file"));
      problems.addAll(
          certificateProblems(
              run,
              "the certificates from the new CA",
              new CertificateUse(
                  run.request.rotateCa().caFile(),
                  run.request.rotateCa().workerTls(),
                  !controlPlane.isEmpty(),
                  peers)));
    }
    problems.addAll(writableAndReachable(run, !controlPlane.isEmpty()));
    if (!problems.isEmpty()) throw refused(run, problems);
  }

  /**
   * Every certificate presented to etcd besides the members' serving ones: renewed with them when
   * they are issued from the CA key, else refused, each with its file and expiry (the run would
   * report success while they expire on the same day).
   */
  private static List<String> unrotated(TlsRun run) {
    List<String> problems = new ArrayList<>();
    List<PresentedCertificate> others = presented(run, problems);
    if (!problems.isEmpty()) return problems;
    if (renewsPresented(run)) return keepToRenew(run, others);
    for (PresentedCertificate c : others) {
      problems.add(
          ("%s: its %s %s (valid until %s) is not replaced by rotate-certificates from"
                  + " certificatesDir, which replaces only each member's --cert-file and"
                  + " --key-file; give caKeyFile instead to renew it with them, or renew it"
                  + " (kubeadm certs renew) or move it aside, then run the runbook again")
              .formatted(c.host(), c.use(), c.file(), c.notAfter()));
    }
    return problems;
  }

  /** Certificates issued from the CA key renew the others too (a version marker, new runs). */
  private static boolean renewsPresented(TlsRun run) {
    return run.request.fromCaKey() && TlsPatches.RENEW_PRESENTED.applies();
  }

  /** Each certificate to renew, kept in the run; one that is missing or unreadable refused. */
  private static List<String> keepToRenew(TlsRun run, List<PresentedCertificate> others) {
    List<String> problems = new ArrayList<>();
    for (PresentedCertificate c : others) {
      if (c.notAfter().equals("missing") || c.notAfter().startsWith("unreadable")) {
        problems.add(
            ("%s: its %s %s is %s, so it cannot be renewed with the same names and key: put a"
                    + " certificate for its key there, then run the runbook again")
                .formatted(c.host(), c.use(), c.file(), c.notAfter()));
      } else {
        run.others.add(c);
      }
    }
    return problems;
  }

  /** The certificates besides the serving ones, each with its expiry; a problem if unread. */
  private static List<PresentedCertificate> presented(TlsRun run, List<String> problems) {
    Map<String, String> serving = new LinkedHashMap<>();
    Map<String, String> peers = new LinkedHashMap<>();
    run.files.forEach((member, files) -> serving.put(member, files.certFile()));
    run.flags.forEach(
        (member, flags) -> flags.value("--peer-cert-file").ifPresent(f -> peers.put(member, f)));
    try {
      return run.ctx
          .progress()
          .record(
              "certificates besides the serving ones",
              () ->
                  run.ctx
                      .activities()
                      .tls
                      .otherCertificates(
                          new OtherCertificatesRequest(run.cluster(), serving, peers)));
    } catch (ActivityFailure e) {
      problems.add(
          "the certificates besides the serving ones could not be listed: "
              + Failures.rootMessage(e));
      return List.of();
    }
  }

  /** Every member's flags file can be edited (a systemd unit is not): a dry run of one flag. */
  private static List<String> flagFilesProblems(TlsRun run, String flag) {
    List<String> problems = new ArrayList<>();
    for (String member : run.members) {
      try {
        run.ctx
            .progress()
            .record(
                member + ": flags can be set",
                () ->
                    run.ctx
                        .activities()
                        .host
                        .setMemberFlags(
                            new SetMemberFlagsRequest(
                                run.cluster(),
                                member,
                                java.util.Map.of(flag, "true"),
                                run.rotationId,
                                false)));
      } catch (ActivityFailure e) {
        problems.add(Failures.rootMessage(e));
      }
    }
    return problems;
  }

  private static List<String> writableAndReachable(TlsRun run, boolean controlPlaneEdits) {
    List<String> problems = new ArrayList<>();
    try {
      run.ctx.activities().inventory.checkWritable(run.ctx.ref());
    } catch (ActivityFailure e) {
      problems.add(Failures.rootMessage(e));
    }
    problems.addAll(
        HostAccessPreflight.problems(
            run.ctx.activities(), run.ctx.progress(), run.cluster(), List.of(), controlPlaneEdits));
    return problems;
  }

  private static void runEnable(TlsRun run) {
    List<String> problems =
        new ArrayList<>(ClusterChecks.memberProblems(run.state, "enabling TLS"));
    EnableTls enable = run.request.enable();
    for (MemberPlacement p : run.placements.values()) {
      if (enable.coversClients() && p.clientUrl().startsWith("https:")) {
        problems.add(
            ("member %s serves clients on https already (%s): enable moves http URLs;"
                    + " rotate-certificates replaces certificates")
                .formatted(p.name(), p.clientUrl()));
      }
      if (enable.coversPeers() && p.peerUrl().startsWith("https:")) {
        problems.add(
            "member %s's peer URL is https already (%s): ask for urls=client"
                .formatted(p.name(), p.peerUrl()));
      }
    }
    if (problems.isEmpty()) problems.addAll(flagFilesProblems(run, "--client-cert-auth"));
    List<String> controlPlane =
        enable.coversClients()
            ? run.ctx.activities().apiServer.controlPlaneHosts(run.ctx.ref())
            : List.of();
    if (problems.isEmpty()) {
      problems.addAll(
          certificateProblems(
              run,
              "the certificates",
              new CertificateUse(
                  enable.caFile(),
                  enable.coversClients() ? enable.workerTls() : null,
                  !controlPlane.isEmpty(),
                  enable.coversPeers())));
    }
    problems.addAll(writableAndReachable(run, !controlPlane.isEmpty()));
    if (!problems.isEmpty()) throw refused(run, problems);
  }

  static void plan(TlsRun run) {
    if (run.rotatingCa()) {
      run.ctx
          .progress()
          .message(
              ("move to the CA %s: every member (restarted one at a time, leader last: %s),"
                          + " kube-apiserver and the worker trust both CAs; every member's certificate"
                          + " replaced by one %s; kube-apiserver and the worker present certificates"
                          + " from the new CA; then each member restarted trusting the new CA alone,"
                          + " kube-apiserver and the worker too")
                      .formatted(
                          run.request.rotateCa().caFile(),
                          run.leaderLast(),
                          run.request.fromCaKey()
                              ? "issued from " + run.request.caKeyFile()
                              : "from " + run.request.certificatesDir())
                  + renewedTooInPlan(run));
      return;
    }
    if (run.enabling()) {
      EnableTls enable = run.request.enable();
      run.ctx
          .progress()
          .message(
              ("enable TLS on %s URLs: certificates %s on every member's host%s; each member"
                      + " restarted, leader last (%s), serving http and https%s; then each"
                      + " restarted serving TLS only%s")
                  .formatted(
                      enable.effectiveUrls(),
                      run.request.fromCaKey()
                          ? "issued from " + run.request.caKeyFile()
                          : "from " + run.request.certificatesDir(),
                      enable.coversClients()
                          ? " and kube-apiserver's etcd client certificate on every control-plane"
                              + " host"
                          : "",
                      run.leaderLast(),
                      enable.coversClients()
                          ? "; the inventory and every kube-apiserver moved to https, one host at"
                              + " a time"
                          : "",
                      enable.coversPeers() ? ", its peer URL moved by member update first" : ""));
      return;
    }
    run.ctx
        .progress()
        .message(
            (run.emergency()
                    ? "EMERGENCY (members not checked for health: each is checked by a handshake"
                        + " with its new certificate instead, the cluster's health in the"
                        + " postflight): "
                    : "")
                + "replace, one member at a time, the certificate and key each member serves (%s)"
                    .formatted(run.files)
                + " with"
                + (run.request.fromCaKey()
                    ? " new ones issued from the CA key %s, valid %d days"
                        .formatted(run.request.caKeyFile(), run.request.effectiveValidityDays())
                    : " %s/<member>.crt and .key".formatted(run.request.certificatesDir()))
                + renewedTooInPlan(run)
                + "; old files kept as <file>.before-%s".formatted(run.rotationId));
  }

  /** The certificates renewed besides the serving ones, as the plan names them. */
  private static String renewedTooInPlan(TlsRun run) {
    if (run.others.isEmpty()) return "";
    return "; with them, each keeping its subject, names, usages and key: "
        + run.others.stream()
            .map(
                c ->
                    "%s's %s %s (valid until %s)"
                        .formatted(c.host(), c.use(), c.file(), c.notAfter()))
            .toList();
  }

  /** How the certificates to check are used: their CA, and the clients that present some. */
  private record CertificateUse(
      String caFile, ClientTls workerTls, boolean apiServerClient, boolean forPeers) {}

  /** Every problem with the certificates, or why they could not be checked. */
  private static List<String> certificateProblems(TlsRun run, String what, CertificateUse use) {
    try {
      return run.ctx
          .progress()
          .record(
              what,
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
                              run.request.effectiveValidityDays(),
                              use.caFile(),
                              use.workerTls(),
                              use.apiServerClient(),
                              use.forPeers())));
    } catch (ActivityFailure e) {
      return List.of(what + " could not be checked: " + Failures.rootMessage(e));
    }
  }

  private static RuntimeException refused(TlsRun run, List<String> problems) {
    return Refusal.of(run.what(), problems, FailureType.TlsRefused);
  }
}
