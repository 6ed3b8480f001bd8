package io.etcdrunbooks.activities.kubernetes;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.etcdrunbooks.secrets.SecretFiles;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

/**
 * What a kubeconfig file's current context says about reaching the apiserver: its URL, the CA it is
 * checked against, and the client's certificate and key or bearer token (inline {@code -data} or as
 * files relative to the kubeconfig). The file holds secrets: it must be mode 0600 or 0400 ({@link
 * SecretFiles}), and every error names the file and the field, never what they hold. {@link
 * #toString()} shows the server only.
 */
public final class Kubeconfig {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final char[] IN_MEMORY_PASSWORD = new char[0];

  private final URI server;
  private final SSLContext ssl;
  private final String bearerToken;

  private Kubeconfig(URI server, SSLContext ssl, String bearerToken) {
    this.server = server;
    this.ssl = ssl;
    this.bearerToken = bearerToken;
  }

  /** The apiserver's base URL, https://host:6443. */
  public URI server() {
    return server;
  }

  SSLContext ssl() {
    return ssl;
  }

  /** The bearer token, or null when the client authenticates by certificate. */
  String bearerToken() {
    return bearerToken;
  }

  @Override
  public String toString() {
    return "kubeconfig for " + server;
  }

  /**
   * Reads the file's current context.
   *
   * @throws IllegalArgumentException naming the file and what is wrong
   */
  public static Kubeconfig load(Path file) {
    try {
      JsonNode root = YAML.readTree(SecretFiles.readString("the kubeconfig", file));
      String contextName = text(root, "current-context");
      if (contextName.isEmpty()) throw wrong(file, "has no current-context");
      JsonNode context = named(root, "contexts", contextName, "context", file);
      JsonNode cluster = named(root, "clusters", text(context, "cluster"), "cluster", file);
      JsonNode user = named(root, "users", text(context, "user"), "user", file);
      String server = text(cluster, "server");
      if (!server.startsWith("https://"))
        throw wrong(file, "cluster's server must be an https:// URL, got '" + server + "'");
      if (cluster.path("insecure-skip-tls-verify").asBoolean(false))
        throw wrong(file, "cluster sets insecure-skip-tls-verify; give it certificate-authority");
      byte[] ca = pem(file, cluster, "certificate-authority");
      if (ca == null) throw wrong(file, "cluster has no certificate-authority(-data)");
      String token = text(user, "token");
      if (token.isEmpty() && !text(user, "tokenFile").isEmpty())
        token =
            Files.readString(file.resolveSibling(text(user, "tokenFile")), StandardCharsets.UTF_8)
                .strip();
      byte[] cert = pem(file, user, "client-certificate");
      byte[] key = pem(file, user, "client-key");
      if ((cert == null) != (key == null))
        throw wrong(file, "user sets client-certificate and client-key only together");
      if (cert == null && token.isEmpty())
        throw wrong(file, "user has neither a client certificate and key nor a token");
      return new Kubeconfig(
          URI.create(server.replaceAll("/+$", "")),
          sslContext(ca, cert, key),
          token.isEmpty() ? null : token);
    } catch (SecretFiles.Refused e) {
      throw new IllegalArgumentException(e.getMessage());
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      if (e instanceof IllegalArgumentException iae && iae.getMessage().startsWith("kubeconfig"))
        throw iae;
      // the exception's own message may quote what the file holds
      throw wrong(file, "cannot be used (" + e.getClass().getSimpleName() + ")");
    }
  }

  private static SSLContext sslContext(byte[] ca, byte[] cert, byte[] key)
      throws GeneralSecurityException, IOException {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    int i = 0;
    for (Certificate c : certificates(ca)) trust.setCertificateEntry("ca-" + i++, c);
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    KeyManagerFactory kmf = null;
    if (cert != null) {
      KeyStore keys = KeyStore.getInstance("PKCS12");
      keys.load(null, null);
      keys.setKeyEntry(
          "client",
          privateKey(key),
          IN_MEMORY_PASSWORD,
          certificates(cert).toArray(Certificate[]::new));
      kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(keys, IN_MEMORY_PASSWORD);
    }
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(kmf == null ? null : kmf.getKeyManagers(), tmf.getTrustManagers(), null);
    return context;
  }

  private static List<Certificate> certificates(byte[] pem) throws GeneralSecurityException {
    List<Certificate> read =
        new ArrayList<>(
            CertificateFactory.getInstance("X.509")
                .generateCertificates(new ByteArrayInputStream(pem)));
    if (read.isEmpty()) throw new GeneralSecurityException("no certificate");
    return read;
  }

  private static PrivateKey privateKey(byte[] pem) throws IOException {
    try (PEMParser parser =
        new PEMParser(new StringReader(new String(pem, StandardCharsets.UTF_8)))) {
      JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
      for (Object item = parser.readObject(); item != null; item = parser.readObject()) {
        if (item instanceof PEMKeyPair pair)
          return converter.getPrivateKey(pair.getPrivateKeyInfo());
        if (item instanceof PrivateKeyInfo info) return converter.getPrivateKey(info);
      }
    }
    throw new IOException("no unencrypted PEM private key");
  }

  /** {@code field-data} (base64 PEM) or {@code field} (a file, relative to the kubeconfig). */
  private static byte[] pem(Path file, JsonNode node, String field) throws IOException {
    String data = text(node, field + "-data");
    if (!data.isEmpty()) return Base64.getDecoder().decode(data.strip());
    String path = text(node, field);
    if (path.isEmpty()) return null;
    Path resolved = file.resolveSibling(path);
    if (field.equals("client-key"))
      return SecretFiles.readAllBytes("the kubeconfig's client key", resolved);
    return Files.readAllBytes(resolved);
  }

  private static JsonNode named(JsonNode root, String list, String name, String inner, Path file) {
    for (JsonNode entry : root.path(list)) {
      if (name.equals(text(entry, "name"))) return entry.path(inner);
    }
    throw wrong(file, "has no " + inner + " named '" + name + "' in " + list);
  }

  private static String text(JsonNode node, String field) {
    return node.path(field).asText("");
  }

  private static IllegalArgumentException wrong(Path file, String what) {
    return new IllegalArgumentException("kubeconfig " + file + " " + what);
  }
}
