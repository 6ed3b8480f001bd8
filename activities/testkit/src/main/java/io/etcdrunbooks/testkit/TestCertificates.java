package io.etcdrunbooks.testkit;

import io.etcdrunbooks.inventory.TlsSpec;
import java.io.IOException;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A CA, a server certificate for 127.0.0.1 and localhost, and two client certificates, as PEM files
 * with keys in the traditional formats kubeadm and cfssl write (PKCS#1 "RSA PRIVATE KEY", SEC1 "EC
 * PRIVATE KEY"). Client key files are mode 0600, as the inventory's secret file rule wants them.
 */
public final class TestCertificates {

  /** How long every certificate made here is valid, from an hour ago. */
  public static final Duration VALIDITY = Duration.ofDays(365);

  /**
   * @param rsaClient what an inventory's tls section points at, the client key an RSA key in PKCS#1
   *     form (kubeadm's)
   * @param ecClient the same with a client key that is an EC key in SEC1 form (cfssl's)
   * @param serverCert for etcd's --cert-file
   * @param serverKey for etcd's --key-file
   * @param authority the CA that signed them, to issue more (rotation tests)
   */
  public record Material(
      TlsSpec rsaClient, TlsSpec ecClient, Path serverCert, Path serverKey, Authority authority) {

    /** The CA that signed every certificate here, for etcd's --trusted-ca-file. */
    public Path caFile() {
      return Path.of(rsaClient.caFile());
    }

    public TlsSpec client(boolean ecKey) {
      return ecKey ? ecClient : rsaClient;
    }
  }

  private TestCertificates() {}

  /** A server certificate and its key, as files. */
  public record Issued(Path cert, Path key) {}

  /**
   * A CA of its own, written to {@code dir/ca.crt}, that issues server certificates with chosen
   * names and validity: what tests of certificate checks and rotation need.
   */
  public static final class Authority {
    private final Path dir;
    private final X500Name name;
    private final KeyPair keys;
    private final Path caFile;

    private Authority(Path dir, String commonName) throws Exception {
      this.dir = Files.createDirectories(dir);
      this.name = new X500Name("CN=" + commonName);
      this.keys = rsa();
      X509Certificate ca =
          sign(name, keys, keys.getPrivate(), name, true, null, List.of(), Instant.now(), VALIDITY);
      this.caFile = pem(dir.resolve("ca.crt"), ca);
    }

    public Path caFile() {
      return caFile;
    }

    /** The CA's private key, written now to {@code dir/ca.key} (mode 0600). */
    public Path writeKey() throws IOException {
      return ownerOnly(pem(dir.resolve("ca.key"), keys));
    }

    /** A client certificate (clientAuth), as {@code dir/<fileName>.crt} and {@code .key}. */
    public TlsSpec issueClient(String fileName) throws Exception {
      return client(dir, fileName, rsa(), keys, name, caFile);
    }

    /**
     * A server certificate for {@code addresses} (IP addresses or DNS names), valid from an hour
     * before {@code from} for {@code validity}; its key is mode 0600.
     */
    public Issued issue(String fileName, List<String> addresses, Instant from, Duration validity)
        throws Exception {
      return issue(
          fileName,
          "CN=" + fileName,
          addresses,
          List.of(KeyPurposeId.id_kp_serverAuth),
          from,
          validity);
    }

    /**
     * A certificate with this subject ({@code CN=...,O=...}), names and extended key usages, as
     * kubeadm issues its peer ({@code serverAuth} and {@code clientAuth}) and client ones; its key
     * (a new one) is mode 0600.
     */
    public Issued issue(
        String fileName,
        String subject,
        List<String> addresses,
        List<KeyPurposeId> purposes,
        Instant from,
        Duration validity)
        throws Exception {
      KeyPair leafKeys = rsa();
      X509Certificate leaf =
          sign(
              new X500Name(subject),
              leafKeys,
              keys.getPrivate(),
              name,
              false,
              purposes.toArray(KeyPurposeId[]::new),
              addresses,
              from,
              validity);
      return new Issued(
          pem(dir.resolve(fileName + ".crt"), leaf),
          ownerOnly(pem(dir.resolve(fileName + ".key"), leafKeys)));
    }
  }

  public static Authority authority(Path dir, String commonName) throws Exception {
    return new Authority(dir, commonName);
  }

  public static Material write(Path dir) throws Exception {
    Authority ca = new Authority(dir, "test-etcd-ca");
    Issued server = ca.issue("server", List.of("127.0.0.1", "localhost"), Instant.now(), VALIDITY);
    return new Material(
        client(dir, "client", rsa(), ca.keys, ca.name, ca.caFile),
        client(dir, "client-ec", ec(), ca.keys, ca.name, ca.caFile),
        server.cert(),
        server.key(),
        ca);
  }

  private static TlsSpec client(
      Path dir, String name, KeyPair keys, KeyPair caKeys, X500Name caName, Path caFile)
      throws Exception {
    X509Certificate client =
        sign(
            new X500Name("CN=etcd-runbooks"),
            keys,
            caKeys.getPrivate(),
            caName,
            false,
            KeyPurposeId.id_kp_clientAuth);
    Path cert = pem(dir.resolve(name + ".crt"), client);
    Path key = ownerOnly(pem(dir.resolve(name + ".key"), keys));
    return new TlsSpec(caFile.toString(), cert.toString(), key.toString());
  }

  private static KeyPair rsa() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(2048);
    return generator.generateKeyPair();
  }

  private static KeyPair ec() throws Exception {
    // BouncyCastle's keys carry the named curve into the SEC1 PEM, as openssl writes it
    KeyPairGenerator generator =
        KeyPairGenerator.getInstance(
            "EC", new org.bouncycastle.jce.provider.BouncyCastleProvider());
    generator.initialize(new java.security.spec.ECGenParameterSpec("secp256r1"));
    return generator.generateKeyPair();
  }

  private static X509Certificate sign(
      X500Name subject,
      KeyPair keys,
      PrivateKey issuerKey,
      X500Name issuer,
      boolean isCa,
      KeyPurposeId purpose)
      throws Exception {
    return sign(
        subject,
        keys,
        issuerKey,
        issuer,
        isCa,
        purpose == null ? null : new KeyPurposeId[] {purpose},
        List.of("127.0.0.1", "localhost"),
        Instant.now(),
        VALIDITY);
  }

  private static X509Certificate sign(
      X500Name subject,
      KeyPair keys,
      PrivateKey issuerKey,
      X500Name issuer,
      boolean isCa,
      KeyPurposeId[] purposes,
      List<String> addresses,
      Instant from,
      Duration validity)
      throws Exception {
    X509v3CertificateBuilder builder =
        new JcaX509v3CertificateBuilder(
            issuer,
            new BigInteger(64, new java.security.SecureRandom()),
            Date.from(from.minus(Duration.ofHours(1))),
            Date.from(from.plus(validity)),
            subject,
            keys.getPublic());
    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(isCa));
    if (purposes != null) {
      builder.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purposes));
      if (!addresses.isEmpty())
        builder.addExtension(
            Extension.subjectAlternativeName,
            false,
            new GeneralNames(
                addresses.stream()
                    .map(
                        a ->
                            new GeneralName(
                                a.matches("[0-9.]+") ? GeneralName.iPAddress : GeneralName.dNSName,
                                a))
                    .toArray(GeneralName[]::new)));
    }
    String algorithm = issuerKey.getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
    return new JcaX509CertificateConverter()
        .getCertificate(builder.build(new JcaContentSignerBuilder(algorithm).build(issuerKey)));
  }

  /** A key file as the secret file rule wants it: mode 0600. */
  private static Path ownerOnly(Path file) throws IOException {
    Files.setPosixFilePermissions(
        file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    return file;
  }

  private static Path pem(Path file, Object object) throws IOException {
    try (Writer out = Files.newBufferedWriter(file);
        JcaPEMWriter pem = new JcaPEMWriter(out)) {
      pem.writeObject(object);
    }
    return file;
  }
}
