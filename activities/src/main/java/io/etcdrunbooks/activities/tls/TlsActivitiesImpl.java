package io.etcdrunbooks.activities.tls;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.etcd.ClusterVersionReader;
import io.etcdrunbooks.activities.etcd.TlsMaterial;
import io.etcdrunbooks.activities.host.MemberShell;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.activities.support.WaitDeadline;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.UnknownClusterException;
import io.etcdrunbooks.secrets.SecretFiles;
import io.etcdrunbooks.workflows.activities.TlsActivities;
import io.etcdrunbooks.workflows.common.FailureType;
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
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link TlsActivities}: new certificates read and checked on the worker, put in place over SSH,
 * and seen in handshakes with the JDK's TLS client.
 */
public final class TlsActivitiesImpl implements TlsActivities {

  private static final Logger log = LoggerFactory.getLogger(TlsActivitiesImpl.class);
  private static final long POLL_MILLIS = 250;

  private final Supplier<Inventory> inventory;
  private final SshConnector ssh;

  public TlsActivitiesImpl(Supplier<Inventory> inventory, SshConnector ssh) {
    this.inventory = inventory;
    this.ssh = ssh;
  }

  @Override
  public List<String> checkCertificates(CheckCertificatesRequest request) {
    ClusterSpec spec = cluster(request.cluster());
    if (spec.tls() == null || spec.tls().caFile() == null) {
      return List.of(
          "cluster '%s' has no tls.caFile in the inventory: the new certificates cannot be checked"
                  .formatted(spec.name())
              + " against the CA the cluster trusts");
    }
    Integer window = spec.tls().expiryWarningDays();
    if (request.caKeyFile() != null && !request.caKeyFile().isBlank()) {
      return caKeyProblems(spec, request, window);
    }
    Path dir = Path.of(request.certificatesDir());
    List<String> problems = new ArrayList<>();
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
              Path.of(spec.tls().caFile()),
              addresses(spec.member(member)),
              Instant.now(),
              window == null ? ServerCertificates.DEFAULT_WARNING_DAYS : window));
    }
    return problems;
  }

  /** The CA key certificates will be issued from: a secret file, the CA certificate's key. */
  private static List<String> caKeyProblems(
      ClusterSpec spec, CheckCertificatesRequest request, Integer window) {
    Path caKey = Path.of(request.caKeyFile());
    Path caFile = Path.of(spec.tls().caFile());
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
    int days = window == null ? ServerCertificates.DEFAULT_WARNING_DAYS : window;
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
   * The member's key and certificate replaced by the staged ones, each atomically with the owner
   * and mode of the file it replaces; the old ones kept as {@code <file>.before-<rotationId>}.
   */
  private static void replaceFiles(
      MemberShell member, InstallCertificateRequest request, String newKey, String newCert) {
    String id = request.rotationId();
    member.run(
        ("set -e\n"
                + "keep() { [ -e \"$1.before-%s\" ] || cp -p \"$1\" \"$1.before-%s\"; }\n"
                + "put() { cp \"$2\" \"$1.new-%s\"; chown --reference=\"$1\" \"$1.new-%s\";"
                + " chmod --reference=\"$1\" \"$1.new-%s\"; mv -f \"$1.new-%s\" \"$1\"; }\n"
                + "keep %s; keep %s\n"
                + "put %s %s; put %s %s\n")
            .formatted(
                id,
                id,
                id,
                id,
                id,
                id,
                quote(request.keyFile()),
                quote(request.certFile()),
                quote(request.keyFile()),
                quote(newKey),
                quote(request.certFile()),
                quote(newCert)),
        "put the new certificate in place of " + request.certFile());
  }

  /**
   * A certificate issued now for the member, from the cluster's CA, with the member's addresses and
   * the names its current certificate has; written to the host, never to the worker's disk.
   */
  private String installIssued(InstallCertificateRequest request) {
    ClusterSpec spec = cluster(request.cluster());
    MemberSpec member = spec.member(request.member());
    Set<String> names = new java.util.TreeSet<>(addresses(member));
    try {
      new ClusterVersionReader(spec)
          .serverCertificate(member.clientUrl())
          .ifPresent(current -> names.addAll(currentNames(current)));
    } catch (IOException e) {
      log.info(
          "{}: current certificate not read ({}); its addresses only",
          member.name(),
          e.getMessage());
    }
    CertificateIssuer.Issued issued;
    try {
      issued =
          CertificateIssuer.of(Path.of(spec.tls().caFile()), Path.of(request.caKeyFile()))
              .issue(member.name(), names, java.time.Duration.ofDays(request.validityDays()));
    } catch (IOException | GeneralSecurityException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          "cannot issue a certificate for member " + member.name() + ": " + e.getMessage(),
          "CertificateNotIssued");
    }
    try (MemberShell shell = shell(request)) {
      String staging = shell.stagingDir();
      ssh.writeFile(shell.host().target(), staging + "/issued.key", issued.keyPem());
      ssh.writeFile(shell.host().target(), staging + "/issued.crt", issued.certificatePem());
      replaceFiles(shell, request, staging + "/issued.key", staging + "/issued.crt");
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
  public void awaitServedCertificate(AwaitCertificateRequest request) {
    ClusterSpec spec = cluster(request.cluster());
    MemberSpec member = spec.member(request.member());
    ClusterVersionReader reader = new ClusterVersionReader(spec);
    WaitDeadline deadline = WaitDeadline.afterSeconds(Math.max(1, request.timeoutSeconds()));
    String last = "nothing yet";
    while (true) {
      try {
        Optional<X509Certificate> served = reader.serverCertificate(member.clientUrl());
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
            ("member %s of cluster '%s' does not serve certificate %s after %d s; it serves: %s."
                    + " Check the member's log (a key that etcd cannot read, say)")
                .formatted(
                    member.name(),
                    spec.name(),
                    request.fingerprint(),
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
    return MemberShell.of(
        cluster(request.cluster()),
        request.member(),
        ssh,
        "replacing certificates",
        "docs/runbooks/reconfigure-tls.md");
  }

  private ClusterSpec cluster(String name) {
    try {
      return inventory.get().cluster(name);
    } catch (UnknownClusterException e) {
      throw FailureType.UnknownCluster.nonRetryable(e.getMessage());
    }
  }
}
