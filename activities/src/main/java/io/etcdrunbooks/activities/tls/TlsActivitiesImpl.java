package io.etcdrunbooks.activities.tls;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.etcd.ClusterVersionReader;
import io.etcdrunbooks.activities.etcd.TlsMaterial;
import io.etcdrunbooks.activities.host.FlagSettings;
import io.etcdrunbooks.activities.host.MemberShell;
import io.etcdrunbooks.activities.ssh.ExecResult;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.ssh.SshTarget;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.activities.support.WaitDeadline;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.ControlPlaneHost;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.inventory.TlsSpec;
import io.etcdrunbooks.secrets.SecretFiles;
import io.etcdrunbooks.workflows.activities.TlsActivities;
import io.etcdrunbooks.workflows.model.ClientTls;
import io.etcdrunbooks.workflows.model.ServerCertificates;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link TlsActivities}: new certificates read and checked on the worker, put in place over SSH,
 * and seen in handshakes with the JDK's TLS client.
 */
public final class TlsActivitiesImpl implements TlsActivities {

  private static final Logger log = LoggerFactory.getLogger(TlsActivitiesImpl.class);
  private static final long POLL_MILLIS = 250;

  /** kubeadm's name for kube-apiserver's etcd client certificate. */
  static final String API_SERVER_CLIENT = "apiserver-etcd-client";

  static final String MEMBER_CERT = "server.crt";
  static final String MEMBER_KEY = "server.key";

  /** kubeadm's name for the certificate etcd's liveness probe presented (beside server.crt). */
  static final String HEALTHCHECK_CLIENT = "healthcheck-client";

  private static final java.net.http.HttpClient PLAIN_HTTP =
      java.net.http.HttpClient.newBuilder()
          .connectTimeout(java.time.Duration.ofSeconds(2))
          .version(java.net.http.HttpClient.Version.HTTP_1_1)
          .build();

  private final ClusterTargets targets;
  private final SshConnector ssh;

  public TlsActivitiesImpl(ClusterTargets targets) {
    this.targets = targets;
    this.ssh = targets.ssh();
  }

  @Override
  public List<String> checkCertificates(CheckCertificatesRequest request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    String caFile =
        request.caFile() != null
            ? request.caFile()
            : spec.tls() == null ? null : spec.tls().caFile();
    if (caFile == null) {
      return List.of(
          "cluster '%s' has no tls.caFile in the inventory: the new certificates cannot be checked"
                  .formatted(spec.name())
              + " against the CA the cluster trusts");
    }
    Integer configured = spec.tls() == null ? null : spec.tls().expiryWarningDays();
    int window = configured == null ? ServerCertificates.DEFAULT_WARNING_DAYS : configured;
    List<String> problems = new ArrayList<>();
    ClientTls worker = request.workerTls();
    if (worker != null) {
      problems.addAll(
          clientProblems(
              "the worker's client certificate",
              Path.of(worker.certFile()),
              Path.of(worker.keyFile()),
              Path.of(worker.caFile()),
              window));
    }
    if (request.caKeyFile() != null && !request.caKeyFile().isBlank()) {
      problems.addAll(caKeyProblems(Path.of(caFile), request, window));
      return problems;
    }
    Path dir = Path.of(request.certificatesDir());
    if (request.apiServerClient()) {
      problems.addAll(
          clientProblems(
              "kube-apiserver's etcd client certificate",
              dir.resolve(API_SERVER_CLIENT + ".crt"),
              dir.resolve(API_SERVER_CLIENT + ".key"),
              Path.of(caFile),
              window));
    }
    for (String member : request.members()) {
      Path cert = dir.resolve(member + ".crt");
      Path key = dir.resolve(member + ".key");
      if (!Files.isRegularFile(cert) || !Files.isRegularFile(key)) {
        problems.add(
            "member %s: %s and %s must both be in certificatesDir".formatted(member, cert, key));
        continue;
      }
      try {
        SecretFiles.check("member " + member + "'s new key file", key);
      } catch (IOException e) {
        problems.add(e.getMessage());
        continue;
      }
      problems.addAll(
          CertificateCheck.problems(
              member,
              cert,
              key,
              Path.of(caFile),
              addresses(spec.member(member)),
              Instant.now(),
              window));
      if (request.forPeers())
        CertificateCheck.allowsClientAuth(member, cert).ifPresent(problems::add);
    }
    return problems;
  }

  /** A client certificate: its files there, its key secret and its own, its chain, its dates. */
  private static List<String> clientProblems(
      String what, Path cert, Path key, Path caFile, int window) {
    if (!Files.isRegularFile(cert) || !Files.isRegularFile(key)) {
      return List.of("%s: %s and %s must both be there".formatted(what, cert, key));
    }
    try {
      SecretFiles.check(what + "'s key file", key);
    } catch (IOException e) {
      return List.of(e.getMessage());
    }
    return CertificateCheck.problems(what, cert, key, caFile, List.of(), Instant.now(), window);
  }

  /** The CA key certificates will be issued from: a secret file, the CA certificate's key. */
  private static List<String> caKeyProblems(
      Path caFile, CheckCertificatesRequest request, int days) {
    Path caKey = Path.of(request.caKeyFile());
    List<String> problems = new ArrayList<>();
    try {
      SecretFiles.check("the CA key file (caKeyFile)", caKey);
      X509Certificate ca = (X509Certificate) TlsMaterial.readCertificates(caFile).get(0);
      CertificateCheck.keyMatches("the CA " + caFile, ca, caKey).ifPresent(problems::add);
      if (ca.getNotAfter()
          .toInstant()
          .isBefore(Instant.now().plus(java.time.Duration.ofDays(request.validityDays())))) {
        problems.add(
            "the CA in %s expires on %s, before certificates issued now for %d days would: renew the CA first (rotate-ca), or issue them for less"
                .formatted(caFile, ca.getNotAfter().toInstant(), request.validityDays()));
      }
    } catch (IOException | GeneralSecurityException e) {
      problems.add(e.getMessage());
    }
    if (request.validityDays() <= days) {
      problems.add(
          "validityDays %d is within the %d-day expiry window: the new certificates would be refused at once"
              .formatted(request.validityDays(), days));
    }
    return problems;
  }

  @Override
  public String installCertificate(InstallCertificateRequest request) {
    if (request.caKeyFile() != null && !request.caKeyFile().isBlank()) {
      return installIssued(request);
    }
    Path cert = Path.of(request.certificatesDir()).resolve(request.member() + ".crt");
    Path key = Path.of(request.certificatesDir()).resolve(request.member() + ".key");
    String fingerprint = fingerprint(cert);
    try (MemberShell member = shell(request)) {
      String sameFile =
          member
              .run(
                  "sha256sum < " + quote(request.certFile()) + " | cut -d' ' -f1",
                  "read " + request.certFile())
              .stdout()
              .strip();
      if (sameFile.equals(fileSha256(cert))) {
        log.info("{}: serves its new certificate file already", member.host().describe());
        return fingerprint;
      }
      String staging = member.upload(List.of(cert, key));
      replaceFiles(
          member, request, staging + "/" + key.getFileName(), staging + "/" + cert.getFileName());
      log.info(
          "{}: new certificate {} in place of {} (old files kept as *.before-{})",
          member.host().describe(),
          fingerprint,
          request.certFile(),
          request.rotationId());
      return fingerprint;
    }
  }

  /**
   * The member's certificate (and, when {@code newKey} is not null and differs, its key) replaced
   * by the staged ones, each by one rename with the owner and mode of the file it replaces; the old
   * ones kept as {@code <file>.before-<rotationId>}.
   *
   * <p>etcd reads the certificate file, then the key file, for every handshake, so whatever the
   * order of two renames, a handshake between them can read a certificate and a key that do not
   * belong together (and fail). Only a rotation that keeps the key (issued from the CA key, or a
   * certificatesDir certificate for the member's current key) is free of that: its certificate
   * changes in one rename. A new key goes in first: a handshake that reads the old certificate and
   * the new key fails, as one that read the new certificate and the old key would.
   */
  private static void replaceFiles(
      MemberShell member, InstallCertificateRequest request, String newKey, String newCert) {
    member.run(
        replaceScript(request.rotationId(), request.keyFile(), request.certFile(), newKey, newCert),
        "put the new certificate in place of " + request.certFile());
  }

  /** The script of {@link #replaceFiles}; with a null {@code keyFile}, the certificate alone. */
  private static String replaceScript(
      String id, String keyFile, String certFile, String newKey, String newCert) {
    StringBuilder script =
        new StringBuilder("set -e\n")
            .append(
                "keep() { [ -e \"$1.before-%s\" ] || cp -p \"$1\" \"$1.before-%s\"; }\n"
                    .formatted(id, id))
            .append(
                ("put() { cmp -s \"$2\" \"$1\" && return 0; cp \"$2\" \"$1.new-%s\";"
                        + " chown --reference=\"$1\" \"$1.new-%s\"; chmod --reference=\"$1\""
                        + " \"$1.new-%s\"; mv -f \"$1.new-%s\" \"$1\"; }\n")
                    .formatted(id, id, id, id));
    if (keyFile != null) script.append("keep %s\n".formatted(quote(keyFile)));
    script.append("keep %s\n".formatted(quote(certFile)));
    if (newKey != null) script.append("put %s %s\n".formatted(quote(keyFile), quote(newKey)));
    script.append("put %s %s\n".formatted(quote(certFile), quote(newCert)));
    return script.toString();
  }

  /**
   * A certificate issued now for the member, from the cluster's CA, with the member's addresses and
   * the names its current certificate has; written to the host, never to the worker's disk.
   */
  private String installIssued(InstallCertificateRequest request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    MemberSpec member = spec.member(request.member());
    Set<String> names = new java.util.TreeSet<>(addresses(member));
    Optional<X509Certificate> current = Optional.empty();
    try {
      current = new ClusterVersionReader(spec).serverCertificate(member.clientUrl());
      current.ifPresent(served -> names.addAll(currentNames(served)));
    } catch (IOException e) {
      // no handshake (a certificate that expired, in an outage): the file, which etcd reads
      current = certificateFile(request);
      current.ifPresent(file -> names.addAll(currentNames(file)));
      log.info(
          "{}: current certificate not read in a handshake ({}); {}",
          member.name(),
          e.getMessage(),
          current.isPresent() ? "read from " + request.certFile() : "a new key");
    }
    CertificateIssuer.Issued issued;
    try {
      CertificateIssuer issuer =
          CertificateIssuer.of(
              Path.of(request.caFile() != null ? request.caFile() : spec.tls().caFile()),
              Path.of(request.caKeyFile()));
      java.time.Duration validity = java.time.Duration.ofDays(request.validityDays());
      // The key of the certificate the member serves now, which etcd checked against its key
      // file in that handshake, is kept: only the certificate file changes, in one rename.
      // ... and its subject, names and usages, as kubeadm certs renew keeps them
      issued =
          current.isPresent()
              ? issuer.renewLike(current.get(), addresses(member), validity)
              : issuer.issue(member.name(), names, validity);
    } catch (IOException | GeneralSecurityException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          "cannot issue a certificate for member " + member.name() + ": " + e.getMessage(),
          "CertificateNotIssued");
    }
    try (MemberShell shell = shell(request)) {
      String staging = shell.stagingDir();
      String newKey = null;
      if (issued.keyPem() != null) {
        newKey = staging + "/issued.key";
        ssh.writeFile(shell.host().target(), newKey, issued.keyPem());
      }
      ssh.writeFile(shell.host().target(), staging + "/issued.crt", issued.certificatePem());
      replaceFiles(shell, request, newKey, staging + "/issued.crt");
    }
    String fingerprint = fingerprint(issued.certificate());
    log.info(
        "cluster '{}' member '{}': certificate {} issued for {} and put in place",
        spec.name(),
        member.name(),
        fingerprint,
        names);
    return fingerprint;
  }

  /** The certificate in the member's --cert-file, read over SSH; empty when unreadable. */
  private Optional<X509Certificate> certificateFile(InstallCertificateRequest request) {
    try (MemberShell shell = shell(request)) {
      String pem =
          shell
              .run(
                  "f=%s; if [ -f \"$f\" ]; then cat \"$f\"; fi"
                      .formatted(quote(request.certFile())),
                  "read " + request.certFile())
              .stdout();
      if (pem.isBlank()) return Optional.empty();
      return Optional.of(
          (X509Certificate)
              java.security.cert.CertificateFactory.getInstance("X.509")
                  .generateCertificate(
                      new java.io.ByteArrayInputStream(
                          pem.getBytes(java.nio.charset.StandardCharsets.US_ASCII))));
    } catch (GeneralSecurityException e) {
      return Optional.empty();
    }
  }

  private static Set<String> currentNames(X509Certificate current) {
    try {
      return CertificateCheck.subjectNames(current);
    } catch (java.security.cert.CertificateParsingException e) {
      return Set.of(); // the member's addresses alone, then
    }
  }

  @Override
  public boolean putCertificateBack(InstallCertificateRequest request) {
    try (MemberShell member = shell(request)) {
      String out =
          member
              .run(
                  ("set -e\n"
                          + "back() { [ -e \"$1.before-%s\" ] || return 1; cp -p \"$1.before-%s\""
                          + " \"$1.back\"; mv -f \"$1.back\" \"$1\"; }\n"
                          + "if back %s; then back %s; echo put-back; else echo none; fi\n")
                      .formatted(
                          request.rotationId(),
                          request.rotationId(),
                          quote(request.keyFile()),
                          quote(request.certFile())),
                  "put the old certificate back over " + request.certFile())
              .stdout()
              .strip();
      log.info("{}: old certificate: {}", member.host().describe(), out);
      return out.equals("put-back");
    }
  }

  @Override
  public PlacedCertificates placeCertificates(PlaceCertificatesRequest request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    if (request.member() != null) {
      MemberSpec member = spec.member(request.member());
      String dir = memberDir(spec, member, request.hostDir());
      PlacedCertificates paths =
          new PlacedCertificates(
              "", dir + "/ca.crt", dir + "/" + MEMBER_CERT, dir + "/" + MEMBER_KEY);
      try (MemberShell shell = shell(spec, member.name())) {
        CertificatePlacement placement =
            new CertificatePlacement(remote(shell), request.changeId(), member.dataDir());
        String leaf = dir + "/" + MEMBER_CERT;
        String placed = placement.placedFingerprint(leaf);
        if (!placed.isEmpty()) return paths.withFingerprint(placed);
        Set<String> names = new java.util.TreeSet<>(addresses(member));
        names.addAll(List.of("localhost", "127.0.0.1"));
        Leaf issued = leaf(request, member.name(), names);
        placement.place(
            List.of(
                new CertificatePlacement.File(dir + "/ca.crt", caPem(request), "644"),
                new CertificatePlacement.File(leaf, issued.certificatePem(), "644"),
                new CertificatePlacement.File(dir + "/" + MEMBER_KEY, issued.keyPem(), "600")),
            leaf,
            sha256(issued.certificatePem()),
            issued.fingerprint());
        log.info(
            "{}: certificate {} placed in {}", shell.host().describe(), issued.fingerprint(), dir);
        return paths.withFingerprint(issued.fingerprint());
      }
    }
    try (ControlPlaneRemote remote = controlPlane(spec, request.controlPlaneHost())) {
      String dir = controlPlaneDir(remote.host, request.hostDir());
      PlacedCertificates paths =
          new PlacedCertificates(
              "",
              dir + "/etcd/ca.crt",
              dir + "/" + API_SERVER_CLIENT + ".crt",
              dir + "/" + API_SERVER_CLIENT + ".key");
      CertificatePlacement placement =
          new CertificatePlacement(remote, request.changeId(), remote.host.manifestPath());
      String leaf = dir + "/" + API_SERVER_CLIENT + ".crt";
      String placed = placement.placedFingerprint(leaf);
      if (!placed.isEmpty()) return paths.withFingerprint(placed);
      Leaf issued = leaf(request, API_SERVER_CLIENT, Set.of());
      placement.place(
          List.of(
              new CertificatePlacement.File(dir + "/etcd/ca.crt", caPem(request), "644"),
              new CertificatePlacement.File(leaf, issued.certificatePem(), "644"),
              new CertificatePlacement.File(
                  dir + "/" + API_SERVER_CLIENT + ".key", issued.keyPem(), "600")),
          leaf,
          sha256(issued.certificatePem()),
          issued.fingerprint());
      log.info(
          "control-plane host {}: etcd client certificate {} placed in {}",
          remote.host.name(),
          issued.fingerprint(),
          dir);
      return paths.withFingerprint(issued.fingerprint());
    }
  }

  @Override
  public boolean removePlacedCertificates(PlaceCertificatesRequest request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    if (request.member() != null) {
      MemberSpec member = spec.member(request.member());
      String dir = memberDir(spec, member, request.hostDir());
      try (MemberShell shell = shell(spec, member.name())) {
        return new CertificatePlacement(remote(shell), request.changeId(), member.dataDir())
            .remove(
                List.of(dir + "/ca.crt", dir + "/" + MEMBER_CERT, dir + "/" + MEMBER_KEY),
                dir + "/" + MEMBER_CERT);
      }
    }
    try (ControlPlaneRemote remote = controlPlane(spec, request.controlPlaneHost())) {
      String dir = controlPlaneDir(remote.host, request.hostDir());
      String leaf = dir + "/" + API_SERVER_CLIENT + ".crt";
      return new CertificatePlacement(remote, request.changeId(), remote.host.manifestPath())
          .remove(
              List.of(dir + "/etcd/ca.crt", leaf, dir + "/" + API_SERVER_CLIENT + ".key"), leaf);
    }
  }

  @Override
  public PlacedTrust placeTrust(PlaceTrustRequest request) {
    String bundle =
        caPem(request.oldCaFile()).strip() + "\n" + caPem(request.newCaFile()).strip() + "\n";
    String onlyNew = caPem(request.newCaFile());
    return onTrustHost(
        request,
        (remote, dir, owner, before) -> {
          PlacedTrust placed =
              new PlacedTrust(
                  dir + "/ca-" + request.changeId() + "-both.crt",
                  dir + "/ca-" + request.changeId() + "-new.crt",
                  dir,
                  before);
          String staging = remote.stagingDir();
          remote.writeFile(staging + "/both.crt", bundle);
          remote.writeFile(staging + "/new.crt", onlyNew);
          remote.run(
              ("set -e\nput() { cmp -s \"$2\" \"$1\" && return 0; cp \"$2\" \"$1.tmp\";"
                      + " chmod 644 \"$1.tmp\"; chown --reference=%s \"$1.tmp\"; mv -f \"$1.tmp\""
                      + " \"$1\"; }\nput %s %s\nput %s %s\n")
                  .formatted(
                      quote(owner),
                      quote(placed.both()),
                      quote(staging + "/both.crt"),
                      quote(placed.onlyNew()),
                      quote(staging + "/new.crt")),
              "put the CA files in place");
          return placed;
        });
  }

  @Override
  public boolean removePlacedTrust(PlaceTrustRequest request) {
    return onTrustHost(
        request,
        (remote, dir, owner, before) -> {
          String both = dir + "/ca-" + request.changeId() + "-both.crt";
          String onlyNew = dir + "/ca-" + request.changeId() + "-new.crt";
          return remote
              .run(
                  ("if [ -e %s ] || [ -e %s ]; then rm -f %s %s; echo removed; else echo none; fi")
                      .formatted(quote(both), quote(onlyNew), quote(both), quote(onlyNew)),
                  "take the CA files away")
              .strip()
              .equals("removed");
        });
  }

  /** Work on the host a trust request names: the directory beside its CA file, and its owner. */
  private interface TrustWork<T> {
    T on(CertificatePlacement.Remote remote, String dir, String owner, ClientTls before);
  }

  private <T> T onTrustHost(PlaceTrustRequest request, TrustWork<T> work) {
    ClusterSpec spec = targets.cluster(request.cluster());
    if (request.member() != null) {
      MemberSpec member = spec.member(request.member());
      try (MemberShell shell = shell(spec, member.name())) {
        return work.on(remote(shell), parentOf(request.besideFile()), member.dataDir(), null);
      }
    }
    try (ControlPlaneRemote remote = controlPlane(spec, request.controlPlaneHost())) {
      String manifest = ssh.readFile(remote.target, remote.host.manifestPath());
      ClientTls before =
          new ClientTls(
              FlagSettings.manifestValue(manifest, "--etcd-cafile").orElse(null),
              FlagSettings.manifestValue(manifest, "--etcd-certfile").orElse(null),
              FlagSettings.manifestValue(manifest, "--etcd-keyfile").orElse(null));
      if (before.caFile() == null) {
        throw ApplicationFailure.newNonRetryableFailure(
            "control-plane host %s: its kube-apiserver manifest has no --etcd-cafile: it does not"
                    .formatted(remote.host.name())
                + " talk TLS to etcd",
            "ManifestNotEditable");
      }
      return work.on(remote, parentOf(before.caFile()), remote.host.manifestPath(), before);
    }
  }

  private static String parentOf(String path) {
    return path.substring(0, Math.max(1, path.lastIndexOf('/')));
  }

  @Override
  public String workerTrust(WorkerTrustRequest request) {
    Path newCa = Path.of(request.newCaFile());
    Path bundle = newCa.resolveSibling(".ca-" + request.changeId() + "-both.crt");
    String content =
        caPem(request.oldCaFile()).strip() + "\n" + caPem(request.newCaFile()).strip() + "\n";
    try {
      if (!Files.exists(bundle) || !Files.readString(bundle).equals(content)) {
        Path tmp = bundle.resolveSibling(bundle.getFileName() + ".tmp");
        Files.writeString(tmp, content);
        Files.move(
            tmp,
            bundle,
            java.nio.file.StandardCopyOption.REPLACE_EXISTING,
            java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      }
      return bundle.toString();
    } catch (IOException e) {
      throw ApplicationFailure.newFailure(
          "cannot write the worker's CA bundle " + bundle + ": " + e.getMessage(),
          "WorkerFileNotWritten");
    }
  }

  @Override
  public List<PresentedCertificate> otherCertificates(OtherCertificatesRequest request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    List<PresentedCertificate> found = new ArrayList<>();
    for (var serving : request.serving().entrySet()) {
      String member = serving.getKey();
      List<String[]> candidates = new ArrayList<>();
      String peer = request.peerCertFiles().get(member);
      if (peer != null && !peer.equals(serving.getValue())) {
        candidates.add(new String[] {PresentedCertificate.PEER, peer});
      }
      candidates.add(
          new String[] {
            PresentedCertificate.HEALTHCHECK_CLIENT,
            parentOf(serving.getValue()) + "/" + HEALTHCHECK_CLIENT + ".crt"
          });
      try (MemberShell shell = shell(spec, member)) {
        for (String[] candidate : candidates) {
          String pem =
              shell
                  .run(
                      "f=%s; if [ -f \"$f\" ]; then cat \"$f\"; fi".formatted(quote(candidate[1])),
                      "read " + candidate[1])
                  .stdout();
          if (!pem.isBlank()) {
            found.add(new PresentedCertificate(member, candidate[0], candidate[1], notAfter(pem)));
          }
        }
      }
    }
    for (ControlPlaneHost host : spec.controlPlane()) {
      try (ControlPlaneRemote remote = controlPlane(spec, host.name())) {
        Optional<String> certFile =
            FlagSettings.manifestValue(
                ssh.readFile(remote.target, host.manifestPath()), "--etcd-certfile");
        if (certFile.isEmpty()) continue;
        String pem =
            remote.run(
                "f=%s; if [ -f \"$f\" ]; then cat \"$f\"; fi".formatted(quote(certFile.get())),
                "read " + certFile.get());
        found.add(
            new PresentedCertificate(
                host.name(),
                PresentedCertificate.APISERVER_CLIENT,
                certFile.get(),
                pem.isBlank() ? "missing" : notAfter(pem)));
      }
    }
    return found;
  }

  @Override
  public String renewCertificateFile(RenewCertificateFileRequest request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    return onFileHost(
        spec,
        request,
        remote -> {
          String file = quote(request.certFile());
          String kept = quote(request.certFile() + ".before-" + request.rotationId());
          // renewed by this rotation already: the file differs from the copy it kept
          String pem =
              remote.run(
                  "if [ -e %s ] && ! cmp -s %s %s; then cat %s; fi"
                      .formatted(kept, kept, file, file),
                  "read " + request.certFile());
          if (!pem.isBlank()) {
            log.info("{}: {} renewed already", request.host(), request.certFile());
            return fingerprint(certificate(pem, request));
          }
          X509Certificate old =
              certificate(remote.run("cat " + file, "read " + request.certFile()), request);
          CertificateIssuer.Issued issued;
          try {
            issued =
                CertificateIssuer.of(
                        Path.of(request.caFile() != null ? request.caFile() : spec.tls().caFile()),
                        Path.of(request.caKeyFile()))
                    .renewLike(old, java.time.Duration.ofDays(request.validityDays()));
          } catch (IOException | GeneralSecurityException e) {
            throw ApplicationFailure.newNonRetryableFailure(
                "cannot renew %s of %s: %s".formatted(request.certFile(), request.host(), e),
                "CertificateNotIssued");
          }
          String staged = remote.stagingDir() + "/renewed.crt";
          remote.writeFile(staged, issued.certificatePem());
          remote.run(
              replaceScript(request.rotationId(), null, request.certFile(), null, staged),
              "put the renewed certificate in place of " + request.certFile());
          String fingerprint = fingerprint(issued.certificate());
          log.info(
              "{}: {} renewed as {} (old file kept as *.before-{})",
              request.host(),
              request.certFile(),
              fingerprint,
              request.rotationId());
          return fingerprint;
        });
  }

  @Override
  public boolean putCertificateFileBack(RenewCertificateFileRequest request) {
    return onFileHost(
        targets.cluster(request.cluster()),
        request,
        remote -> {
          String out =
              remote
                  .run(
                      ("f=%s; k=\"$f.before-%s\"; if [ -e \"$k\" ] && ! cmp -s \"$k\" \"$f\";"
                              + " then cp -p \"$k\" \"$f.back\"; mv -f \"$f.back\" \"$f\";"
                              + " echo put-back; else echo none; fi")
                          .formatted(quote(request.certFile()), request.rotationId()),
                      "put the old certificate back over " + request.certFile())
                  .strip();
          log.info("{}: old {}: {}", request.host(), request.certFile(), out);
          return out.equals("put-back");
        });
  }

  private <T> T onFileHost(
      ClusterSpec spec,
      RenewCertificateFileRequest request,
      java.util.function.Function<CertificatePlacement.Remote, T> work) {
    if (request.member() != null) {
      try (MemberShell shell = shell(spec, request.member())) {
        return work.apply(remote(shell));
      }
    }
    try (ControlPlaneRemote remote = controlPlane(spec, request.controlPlaneHost())) {
      return work.apply(remote);
    }
  }

  private static X509Certificate certificate(String pem, RenewCertificateFileRequest request) {
    try {
      return (X509Certificate)
          java.security.cert.CertificateFactory.getInstance("X.509")
              .generateCertificate(
                  new java.io.ByteArrayInputStream(
                      pem.getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
    } catch (GeneralSecurityException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          "%s: %s holds no readable certificate (%s): replace it by hand"
              .formatted(request.host(), request.certFile(), e.getClass().getSimpleName()),
          "CertificateUnusable");
    }
  }

  /** The expiry of the first certificate in a PEM text, or why it could not be read. */
  private static String notAfter(String pem) {
    try {
      return ((X509Certificate)
              java.security.cert.CertificateFactory.getInstance("X.509")
                  .generateCertificate(
                      new java.io.ByteArrayInputStream(
                          pem.getBytes(java.nio.charset.StandardCharsets.US_ASCII))))
          .getNotAfter()
          .toInstant()
          .toString();
    } catch (GeneralSecurityException e) {
      return "unreadable (" + e.getClass().getSimpleName() + ")";
    }
  }

  @Override
  public List<String> plainHttpServed(PlainHttpRequest request) {
    MemberSpec member = targets.cluster(request.cluster()).member(request.member());
    List<String> served = new ArrayList<>();
    if (request.client() && answersPlainHttp(member.clientUrl())) served.add(member.clientUrl());
    if (request.peer() && answersPlainHttp(member.peerUrl())) served.add(member.peerUrl());
    return served;
  }

  private static boolean answersPlainHttp(String url) {
    URI plain =
        URI.create("http" + url.substring(url.indexOf(':')).replaceAll("/+$", "") + "/version");
    try {
      return PLAIN_HTTP
              .send(
                  java.net.http.HttpRequest.newBuilder(plain)
                      .timeout(java.time.Duration.ofSeconds(2))
                      .build(),
                  java.net.http.HttpResponse.BodyHandlers.discarding())
              .statusCode()
          == 200;
    } catch (IOException e) {
      return false; // refused, reset, or a TLS listener's answer that is no HTTP
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while asking " + plain, e);
    }
  }

  /** A member's certificate directory on its host: the request's, or where its kind keeps them. */
  static String memberDir(ClusterSpec spec, MemberSpec member, String requested) {
    if (requested != null && !requested.isBlank()) {
      return requested.replace("{member}", member.name()).replaceAll("/+$", "");
    }
    String kind = spec.service() == null ? ServiceSpec.PLAIN : spec.service().kind();
    if (ServiceSpec.PLAIN.equals(kind) && member.serviceDir() != null) {
      return member.serviceDir() + "/pki";
    }
    return ServiceSpec.STATIC_POD.equals(kind) ? "/etc/kubernetes/pki/etcd" : "/etc/etcd/pki";
  }

  /** kubeadm's pki directory: beside the manifests directory (/etc/kubernetes/pki). */
  static String controlPlaneDir(ControlPlaneHost host, String requested) {
    if (requested != null && !requested.isBlank()) {
      return requested.replace("{host}", host.name()).replaceAll("/+$", "");
    }
    String manifests = host.manifestPath().substring(0, host.manifestPath().lastIndexOf('/'));
    return manifests.substring(0, Math.max(0, manifests.lastIndexOf('/'))) + "/pki";
  }

  /** A certificate and key for one member or client, from certificatesDir or issued now. */
  private record Leaf(String certificatePem, String keyPem, String fingerprint) {}

  private static Leaf leaf(PlaceCertificatesRequest request, String name, Set<String> names) {
    if (request.caKeyFile() != null && !request.caKeyFile().isBlank()) {
      try {
        CertificateIssuer.Issued issued =
            CertificateIssuer.of(Path.of(request.caFile()), Path.of(request.caKeyFile()))
                .issue(name, names, java.time.Duration.ofDays(request.validityDays()));
        return new Leaf(
            issued.certificatePem(), issued.keyPem(), fingerprint(issued.certificate()));
      } catch (IOException | GeneralSecurityException e) {
        throw ApplicationFailure.newNonRetryableFailure(
            "cannot issue a certificate for " + name + ": " + e.getMessage(),
            "CertificateNotIssued");
      }
    }
    Path cert = Path.of(request.certificatesDir()).resolve(name + ".crt");
    Path key = Path.of(request.certificatesDir()).resolve(name + ".key");
    try {
      return new Leaf(Files.readString(cert), Files.readString(key), fingerprint(cert));
    } catch (IOException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          "cannot read the certificate files of "
              + name
              + " in "
              + request.certificatesDir()
              + ": "
              + e.getClass().getSimpleName(),
          "CertificateUnusable");
    }
  }

  private static String caPem(PlaceCertificatesRequest request) {
    return caPem(request.caFile());
  }

  private static String caPem(String caFile) {
    try {
      return Files.readString(Path.of(caFile));
    } catch (IOException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          "cannot read the CA certificate " + caFile + ": " + e.getMessage(),
          "CertificateUnusable");
    }
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256")
                  .digest(text.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private CertificatePlacement.Remote remote(MemberShell shell) {
    return new CertificatePlacement.Remote() {
      @Override
      public String stagingDir() {
        return shell.stagingDir();
      }

      @Override
      public void writeFile(String path, String content) {
        ssh.writeFile(shell.host().target(), path, content);
      }

      @Override
      public String run(String script, String what) {
        return shell.run(script, what).stdout();
      }
    };
  }

  private ControlPlaneRemote controlPlane(ClusterSpec spec, String hostName) {
    ControlPlaneHost host =
        spec.controlPlane().stream()
            .filter(h -> h.name().equals(hostName))
            .findFirst()
            .orElseThrow(
                () ->
                    ApplicationFailure.newNonRetryableFailure(
                        "cluster '%s' has no control-plane host '%s'"
                            .formatted(spec.name(), hostName),
                        "UnknownControlPlaneHost"));
    return new ControlPlaneRemote(ssh, host, SshTarget.of(spec, host));
  }

  /** A control-plane host's files, reached as the SSH user (as the manifest edits are). */
  private static final class ControlPlaneRemote
      implements CertificatePlacement.Remote, AutoCloseable {
    final ControlPlaneHost host;
    final SshTarget target;
    private final SshConnector ssh;
    private String staging;

    ControlPlaneRemote(SshConnector ssh, ControlPlaneHost host, SshTarget target) {
      this.ssh = ssh;
      this.host = host;
      this.target = target;
    }

    @Override
    public String stagingDir() {
      if (staging == null) {
        staging =
            run("mktemp -d /var/tmp/etcd-runbooks.XXXXXX", "create a staging directory").strip();
      }
      return staging;
    }

    @Override
    public void writeFile(String path, String content) {
      ssh.writeFile(target, path, content);
    }

    @Override
    public String run(String script, String what) {
      ExecResult result = ssh.exec(target, script, java.time.Duration.ofSeconds(30));
      if (!result.ok()) {
        throw ApplicationFailure.newFailure(
            "cannot %s on control-plane host %s (exit %d): %s"
                .formatted(what, host.name(), result.exitCode(), MemberShell.tail(result.stderr())),
            "HostCommandFailed");
      }
      return result.stdout();
    }

    @Override
    public void close() {
      if (staging != null)
        ssh.exec(target, "rm -rf " + quote(staging), java.time.Duration.ofSeconds(30));
    }
  }

  @Override
  public void awaitServedCertificate(AwaitCertificateRequest request) {
    ClusterSpec inventorySpec = targets.cluster(request.cluster());
    MemberSpec member = inventorySpec.member(request.member());
    ClientTls tls = request.tls();
    ClusterSpec spec =
        tls == null
            ? inventorySpec
            : inventorySpec.withTls(new TlsSpec(tls.caFile(), tls.certFile(), tls.keyFile()));
    String url =
        tls == null
            ? member.clientUrl()
            : "https" + member.clientUrl().substring(member.clientUrl().indexOf(':'));
    ClusterVersionReader reader = new ClusterVersionReader(spec);
    awaitServed(request, spec, member, "", () -> reader.serverCertificate(url));
  }

  @Override
  public void awaitServedPeerCertificate(AwaitCertificateRequest request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    MemberSpec member = spec.member(request.member());
    ClusterVersionReader reader = new ClusterVersionReader(spec);
    awaitServed(
        request, spec, member, " on its peer URL", () -> reader.peerCertificate(member.peerUrl()));
  }

  /** A handshake, as the member answers it now. */
  private interface Handshake {
    Optional<X509Certificate> served() throws IOException;
  }

  private static void awaitServed(
      AwaitCertificateRequest request,
      ClusterSpec spec,
      MemberSpec member,
      String where,
      Handshake handshake) {
    WaitDeadline deadline = WaitDeadline.afterSeconds(Math.max(1, request.timeoutSeconds()));
    String last = "nothing yet";
    while (true) {
      try {
        Optional<X509Certificate> served = handshake.served();
        if (served.isPresent()) {
          String seen = fingerprint(served.get());
          if (seen.equals(request.fingerprint())) return;
          last = "certificate " + seen + " valid until " + served.get().getNotAfter().toInstant();
        } else {
          last = "no certificate (http)";
        }
      } catch (IOException e) {
        last = e.getMessage();
      }
      if (deadline.passed()) {
        throw ApplicationFailure.newNonRetryableFailure(
            ("member %s of cluster '%s' does not serve certificate %s%s after %d s; it serves: %s."
                    + " Check the member's log (a key that etcd cannot read, say)")
                .formatted(
                    member.name(),
                    spec.name(),
                    request.fingerprint(),
                    where,
                    request.timeoutSeconds(),
                    last),
            "CertificateNotServed");
      }
      Heartbeats.beat(member.name() + ": " + last);
      Heartbeats.pause(POLL_MILLIS);
    }
  }

  /** The hosts a member is reached at, from its client and peer URLs. */
  static Set<String> addresses(MemberSpec member) {
    Set<String> addresses = new LinkedHashSet<>();
    addresses.add(URI.create(member.clientUrl()).getHost());
    addresses.add(URI.create(member.peerUrl()).getHost());
    return addresses;
  }

  private static String fingerprint(Path certFile) {
    try {
      return fingerprint((X509Certificate) TlsMaterial.readCertificates(certFile).get(0));
    } catch (IOException | GeneralSecurityException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          "cannot read the certificate " + certFile + ": " + e.getMessage(), "CertificateUnusable");
    }
  }

  static String fingerprint(X509Certificate certificate) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded()));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String fileSha256(Path file) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private MemberShell shell(InstallCertificateRequest request) {
    return shell(targets.cluster(request.cluster()), request.member());
  }

  private MemberShell shell(ClusterSpec spec, String member) {
    return targets.shell(spec, member, "reconfiguring TLS", "docs/runbooks/reconfigure-tls.md");
  }
}
