package io.etcdrunbooks.activities.tls;

import io.etcdrunbooks.activities.etcd.TlsMaterial;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * Issues a member's server certificate from the cluster's CA, as kubeadm's certs phase does for
 * etcd: a new RSA 2048 key, the member's names and addresses as subject alternative names, server
 * and client use (etcd dials itself and its peers with it). The key exists in memory and in the PEM
 * this returns, which goes straight to the member's host. Renews a certificate as {@code kubeadm
 * certs renew} does: its subject, names, usages and key kept, so only the certificate file changes
 * and etcd never reads a certificate and a key that do not belong together.
 */
final class CertificateIssuer {

  /** A certificate and its key, PEM-encoded. */
  record Issued(String certificatePem, String keyPem, X509Certificate certificate) {}

  private final X509Certificate ca;
  private final PrivateKey caKey;

  private CertificateIssuer(X509Certificate ca, PrivateKey caKey) {
    this.ca = ca;
    this.caKey = caKey;
  }

  static CertificateIssuer of(java.nio.file.Path caFile, java.nio.file.Path caKeyFile)
      throws IOException, GeneralSecurityException {
    return new CertificateIssuer(
        (X509Certificate) TlsMaterial.readCertificates(caFile).get(0),
        TlsMaterial.readPrivateKey(caKeyFile));
  }

  Issued issue(String member, Collection<String> names, Duration validity)
      throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(2048);
    KeyPair keys = generator.generateKeyPair();
    X509Certificate certificate = sign(member, names, validity, keys.getPublic());
    return new Issued(
        pem("CERTIFICATE", certificate.getEncoded()),
        pem("PRIVATE KEY", keys.getPrivate().getEncoded()),
        certificate);
  }

  /**
   * A certificate like {@code old} (its subject, names, key usages and key), issued now by this CA
   * for {@code validity}: what renews a peer, healthcheck or apiserver client certificate, whose
   * subject and usages kubeadm chose, without a new key.
   */
  Issued renewLike(X509Certificate old, Duration validity) throws GeneralSecurityException {
    return renewLike(old, List.of(), validity);
  }

  /**
   * As {@link #renewLike(X509Certificate, Duration)}, its names completed with {@code alsoNames} (a
   * member's addresses) where the old certificate lacks them.
   */
  Issued renewLike(X509Certificate old, Collection<String> alsoNames, Duration validity)
      throws GeneralSecurityException {
    Instant now = Instant.now();
    try {
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
              ca,
              new BigInteger(127, new SecureRandom()),
              Date.from(now.minus(Duration.ofMinutes(5))),
              Date.from(now.plus(validity)),
              X500Name.getInstance(old.getSubjectX500Principal().getEncoded()),
              old.getPublicKey());
      org.bouncycastle.cert.X509CertificateHolder holder =
          new org.bouncycastle.cert.jcajce.JcaX509CertificateHolder(old);
      for (var oid :
          List.of(Extension.basicConstraints, Extension.keyUsage, Extension.extendedKeyUsage)) {
        Extension extension = holder.getExtension(oid);
        if (extension != null) builder.copyAndAddExtension(oid, extension.isCritical(), holder);
      }
      java.util.Set<String> missing = new java.util.LinkedHashSet<>(alsoNames);
      missing.removeAll(CertificateCheck.subjectNames(old));
      Extension names = holder.getExtension(Extension.subjectAlternativeName);
      if (missing.isEmpty() && names != null) {
        builder.copyAndAddExtension(Extension.subjectAlternativeName, names.isCritical(), holder);
      } else if (!missing.isEmpty()) {
        List<GeneralName> all = new java.util.ArrayList<>();
        if (names != null) {
          all.addAll(List.of(GeneralNames.getInstance(names.getParsedValue()).getNames()));
        }
        missing.forEach(n -> all.add(generalName(n)));
        builder.addExtension(
            Extension.subjectAlternativeName,
            names != null && names.isCritical(),
            new GeneralNames(all.toArray(GeneralName[]::new)));
      }
      String algorithm = caKey.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
      X509Certificate certificate =
          new JcaX509CertificateConverter()
              .getCertificate(builder.build(new JcaContentSignerBuilder(algorithm).build(caKey)));
      return new Issued(pem("CERTIFICATE", certificate.getEncoded()), null, certificate);
    } catch (OperatorCreationException | IOException e) {
      throw new GeneralSecurityException(
          "cannot renew the certificate of " + old.getSubjectX500Principal(), e);
    }
  }

  private X509Certificate sign(
      String member, Collection<String> names, Duration validity, PublicKey publicKey)
      throws GeneralSecurityException {
    Instant now = Instant.now();
    try {
      X509v3CertificateBuilder builder =
          new JcaX509v3CertificateBuilder(
              ca,
              new BigInteger(127, new SecureRandom()),
              Date.from(now.minus(Duration.ofMinutes(5))),
              Date.from(now.plus(validity)),
              new X500Name("CN=" + member),
              publicKey);
      builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      builder.addExtension(
          Extension.keyUsage,
          true,
          new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
      builder.addExtension(
          Extension.extendedKeyUsage,
          false,
          new ExtendedKeyUsage(
              new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
      // a client certificate (kube-apiserver's) has no names to cover
      if (!names.isEmpty())
        builder.addExtension(
            Extension.subjectAlternativeName,
            false,
            new GeneralNames(
                names.stream().map(CertificateIssuer::generalName).toArray(GeneralName[]::new)));
      String algorithm = caKey.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
      return new JcaX509CertificateConverter()
          .getCertificate(builder.build(new JcaContentSignerBuilder(algorithm).build(caKey)));
    } catch (OperatorCreationException | IOException e) {
      throw new GeneralSecurityException("cannot issue a certificate for " + member, e);
    }
  }

  private static GeneralName generalName(String name) {
    return new GeneralName(
        name.matches("[0-9.]+|.*:.*") ? GeneralName.iPAddress : GeneralName.dNSName, name);
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + new String(
            Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encode(der),
            StandardCharsets.US_ASCII)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
