package io.etcdrunbooks.activities.tls;

import io.etcdrunbooks.activities.etcd.TlsMaterial;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Date;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What a member's certificate must be before a runbook puts it in place: its key matches it, its
 * chain reaches the CA the cluster trusts, its subject alternative names cover every address the
 * member is reached at, and it is valid now and for a while yet. Nothing here ever names a key's
 * contents.
 */
public final class CertificateCheck {

  private CertificateCheck() {}

  /**
   * One problem per failed check, each naming the member, the file and what to do; empty when the
   * certificate may be used.
   *
   * @param addresses hosts and IP addresses the member is reached at (from its URLs)
   * @param warningDays a certificate expiring within this many days is a problem too
   */
  public static List<String> problems(
      String member,
      Path certFile,
      Path keyFile,
      Path caFile,
      Collection<String> addresses,
      Instant now,
      int warningDays) {
    List<String> problems = new ArrayList<>();
    X509Certificate leaf;
    List<Certificate> chain;
    try {
      chain = TlsMaterial.readCertificates(certFile);
      leaf = (X509Certificate) chain.get(0);
    } catch (IOException
        | GeneralSecurityException
        | IllegalArgumentException
        | ClassCastException e) {
      return List.of(
          "member %s: %s holds no readable certificate (%s)"
              .formatted(member, certFile, e.getMessage()));
    }
    keyMatches(member, leaf, keyFile).ifPresent(problems::add);
    chainReaches(member, certFile, chain, caFile, now).ifPresent(problems::add);
    problems.addAll(covers(member, certFile, leaf, addresses));
    problems.addAll(validity(member, certFile, leaf, now, warningDays));
    return problems;
  }

  /**
   * A member's certificate used for peers is presented as a client certificate too: its extended
   * key usage, when it has one, must include clientAuth (etcd's peers refuse it otherwise).
   */
  public static Optional<String> allowsClientAuth(String member, Path certFile) {
    try {
      X509Certificate leaf = (X509Certificate) TlsMaterial.readCertificates(certFile).get(0);
      List<String> usage = leaf.getExtendedKeyUsage();
      if (usage == null || usage.contains(CLIENT_AUTH)) return Optional.empty();
      return Optional.of(
          ("member %s: %s does not allow client authentication (extendedKeyUsage %s): a member"
                  + " presents its certificate to its peers, so issue it with clientAuth too")
              .formatted(member, certFile, usage));
    } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
      return Optional.of(
          "member %s: %s holds no readable certificate (%s)"
              .formatted(member, certFile, e.getMessage()));
    }
  }

  private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

  /** Whether the key in the file belongs to the certificate; a problem naming both otherwise. */
  public static Optional<String> keyMatches(String member, X509Certificate leaf, Path keyFile) {
    try {
      PrivateKey key = TlsMaterial.readPrivateKey(keyFile);
      byte[] challenge = new byte[32];
      new SecureRandom().nextBytes(challenge);
      String algorithm = key.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(challenge);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(leaf.getPublicKey());
      verifier.update(challenge);
      if (verifier.verify(signature)) return Optional.empty();
    } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
      return Optional.of(
          "member %s: the key file %s cannot be used (%s)"
              .formatted(member, keyFile, e.getMessage()));
    }
    return Optional.of(
        "member %s: the key in %s does not belong to its certificate (%s): they come from different"
                .formatted(member, keyFile, leaf.getSubjectX500Principal().getName())
            + " key pairs; give the certificate's own key");
  }

  private static Optional<String> chainReaches(
      String member, Path certFile, List<Certificate> chain, Path caFile, Instant now) {
    try {
      Set<TrustAnchor> anchors = new HashSet<>();
      for (Certificate ca : TlsMaterial.readCertificates(caFile)) {
        anchors.add(new TrustAnchor((X509Certificate) ca, null));
      }
      PKIXParameters parameters = new PKIXParameters(anchors);
      parameters.setRevocationEnabled(false);
      parameters.setDate(Date.from(now));
      CertPathValidator.getInstance("PKIX")
          .validate(CertificateFactory.getInstance("X.509").generateCertPath(chain), parameters);
      return Optional.empty();
    } catch (CertPathValidatorException e) {
      return Optional.of(
          ("member %s: the certificate in %s does not chain to the CA in %s (%s): members and"
                  + " clients that trust that CA would refuse it")
              .formatted(member, certFile, caFile, e.getMessage()));
    } catch (IOException | GeneralSecurityException | IllegalArgumentException e) {
      return Optional.of(
          "member %s: the CA file %s cannot be used (%s)"
              .formatted(member, caFile, e.getMessage()));
    }
  }

  /**
   * Whether the certificate's subject alternative names cover every address; one problem per
   * address missing, naming the member and where the certificate is.
   */
  public static List<String> covers(
      String member, Object certFile, X509Certificate leaf, Collection<String> addresses) {
    Set<String> names;
    try {
      names = subjectNames(leaf);
    } catch (CertificateParsingException e) {
      return List.of(
          "member %s: the subject alternative names of %s cannot be read"
              .formatted(member, certFile));
    }
    List<String> problems = new ArrayList<>();
    for (String address : new LinkedHashSet<>(addresses)) {
      if (!names.contains(address)) {
        problems.add(
            ("member %s: the certificate in %s does not cover %s (its subject alternative names:"
                    + " %s): clients reaching the member there would refuse it; issue it with %s"
                    + " among its names")
                .formatted(member, certFile, address, names, address));
      }
    }
    return problems;
  }

  /** The DNS names and IP addresses among the certificate's subject alternative names, sorted. */
  public static Set<String> subjectNames(X509Certificate certificate)
      throws CertificateParsingException {
    Set<String> names = new TreeSet<>();
    Collection<List<?>> sans = certificate.getSubjectAlternativeNames();
    if (sans == null) return names;
    for (List<?> san : sans) {
      if (san.get(0) instanceof Integer type && (type == 2 || type == 7)) {
        names.add(String.valueOf(san.get(1)));
      }
    }
    return names;
  }

  private static List<String> validity(
      String member, Path certFile, X509Certificate leaf, Instant now, int warningDays) {
    Instant notBefore = leaf.getNotBefore().toInstant();
    Instant notAfter = leaf.getNotAfter().toInstant();
    if (now.isBefore(notBefore)) {
      return List.of(
          "member %s: the certificate in %s is not valid before %s; check the issuer's clock"
              .formatted(member, certFile, notBefore));
    }
    if (!now.isBefore(notAfter)) {
      return List.of(
          "member %s: the certificate in %s expired on %s".formatted(member, certFile, notAfter));
    }
    long days = Duration.between(now, notAfter).toDays();
    if (days < warningDays) {
      return List.of(
          ("member %s: the certificate in %s expires on %s, in %d days (within the %d-day window):"
                  + " issue a longer-lived one")
              .formatted(member, certFile, notAfter, days, warningDays));
    }
    return List.of();
  }
}
