package io.etcdrunbooks.activities.etcd;

import io.etcdrunbooks.inventory.TlsSpec;
import io.etcdrunbooks.secrets.SecretFiles;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * Client TLS for etcd from PEM files: a CA bundle, and optionally a client certificate and its key
 * (PKCS#8, PKCS#1 RSA or SEC1 EC, unencrypted), a secret file ({@link SecretFiles}: mode 0600 or
 * 0400). Used for both gRPC (jetcd) and HTTP (/version, /health). Error messages name the files,
 * never their contents.
 */
public final class TlsMaterial {

  private static final char[] IN_MEMORY_PASSWORD = new char[0];

  private final TrustManagerFactory trustManagers;
  private final KeyManagerFactory keyManagers;

  private TlsMaterial(TrustManagerFactory trustManagers, KeyManagerFactory keyManagers) {
    this.trustManagers = trustManagers;
    this.keyManagers = keyManagers;
  }

  public static TlsMaterial load(TlsSpec spec) {
    if (spec.caFile() == null || spec.caFile().isBlank()) {
      throw new IllegalArgumentException("tls.caFile is required when tls is set");
    }
    try {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      int i = 0;
      for (Certificate ca : certificates(Path.of(spec.caFile()))) {
        trust.setCertificateEntry("ca-" + i++, ca);
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);

      KeyManagerFactory kmf = null;
      boolean hasCert = spec.certFile() != null && !spec.certFile().isBlank();
      boolean hasKey = spec.keyFile() != null && !spec.keyFile().isBlank();
      if (hasCert != hasKey) {
        throw new IllegalArgumentException("tls.certFile and tls.keyFile must be set together");
      }
      if (hasCert) {
        List<Certificate> chain = certificates(Path.of(spec.certFile()));
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry(
            "client",
            privateKey(Path.of(spec.keyFile())),
            IN_MEMORY_PASSWORD,
            chain.toArray(Certificate[]::new));
        kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, IN_MEMORY_PASSWORD);
      }
      return new TlsMaterial(tmf, kmf);
    } catch (SecretFiles.Refused e) {
      throw new IllegalArgumentException(
          "cannot set up client TLS from " + describe(spec) + ": " + e.getMessage());
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalArgumentException(
          "cannot set up client TLS from " + describe(spec) + ": " + e.getClass().getSimpleName(),
          e);
    }
  }

  /** For the JDK HttpClient. */
  public SSLContext sslContext() {
    try {
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(
          keyManagers == null ? null : keyManagers.getKeyManagers(),
          trustManagers.getTrustManagers(),
          null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot create an SSL context", e);
    }
  }

  /**
   * As {@link #sslContext()}, handing every chain a server presents to {@code seen} before it is
   * checked: a handshake refused later (a peer listener that wants another client certificate) has
   * still shown its certificate.
   */
  public SSLContext sslContextShowing(Consumer<X509Certificate[]> seen) {
    try {
      X509TrustManager trust =
          Arrays.stream(trustManagers.getTrustManagers())
              .filter(X509TrustManager.class::isInstance)
              .map(X509TrustManager.class::cast)
              .findFirst()
              .orElseThrow();
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(
          keyManagers == null ? null : keyManagers.getKeyManagers(),
          new TrustManager[] {new ShowingTrustManager(trust, seen)},
          null);
      return context;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot create an SSL context", e);
    }
  }

  private record ShowingTrustManager(X509TrustManager trust, Consumer<X509Certificate[]> seen)
      implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      trust.checkClientTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType)
        throws CertificateException {
      seen.accept(chain);
      trust.checkServerTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return trust.getAcceptedIssuers();
    }
  }

  /** For jetcd's gRPC channel. */
  public void configure(SslContextBuilder builder) {
    builder.trustManager(trustManagers);
    if (keyManagers != null) builder.keyManager(keyManagers);
  }

  /** Every certificate in a PEM file, in order; fails when there is none. */
  public static List<Certificate> readCertificates(Path file)
      throws IOException, GeneralSecurityException {
    return certificates(file);
  }

  private static List<Certificate> certificates(Path file)
      throws IOException, GeneralSecurityException {
    try (InputStream in = Files.newInputStream(file)) {
      Collection<? extends Certificate> read =
          CertificateFactory.getInstance("X.509").generateCertificates(in);
      if (read.isEmpty()) throw new IllegalArgumentException("no certificate in " + file);
      return new ArrayList<>(read);
    }
  }

  private static PrivateKey privateKey(Path file) throws IOException {
    SecretFiles.check("the client key file (tls.keyFile)", file);
    return readPrivateKey(file);
  }

  /**
   * The unencrypted PEM private key in the file (PKCS#8, PKCS#1 or SEC1); fails naming the file,
   * never its contents.
   */
  public static PrivateKey readPrivateKey(Path file) throws IOException {
    try (Reader reader = Files.newBufferedReader(file);
        PEMParser parser = new PEMParser(reader)) {
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      for (Object item = parser.readObject(); item != null; item = parser.readObject()) {
        // SEC1 EC keys may lack the optional public key: take the private part alone
        if (item instanceof PEMKeyPair pair)
          return converter.getPrivateKey(pair.getPrivateKeyInfo());
        if (item instanceof PrivateKeyInfo info) return converter.getPrivateKey(info);
      }
    }
    // Deliberately vague about what was found: the file holds a secret.
    throw new IllegalArgumentException(
        "no unencrypted PEM private key (PKCS#8, PKCS#1 or SEC1) in " + file);
  }

  private static String describe(TlsSpec spec) {
    return "caFile="
        + spec.caFile()
        + ", certFile="
        + spec.certFile()
        + ", keyFile="
        + spec.keyFile();
  }
}
