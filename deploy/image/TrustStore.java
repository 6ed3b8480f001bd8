import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.List;

/**
 * Builds the JRE's trust store (PKCS12, password changeit, as Debian's ca-certificates-java writes it) from the
 * CA certificates of Debian's ca-certificates package: java TrustStore.java <dir of *.crt> <out>.
 */
public class TrustStore {
  public static void main(String[] args) throws Exception {
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    CertificateFactory x509 = CertificateFactory.getInstance("X.509");
    List<Path> certs;
    try (var files = Files.walk(Path.of(args[0]))) {
      certs = files.filter(p -> p.toString().endsWith(".crt")).sorted().toList();
    }
    for (Path cert : certs) {
      try (InputStream in = Files.newInputStream(cert)) {
        String alias = cert.getFileName().toString().replaceFirst("\\.crt$", "").toLowerCase();
        store.setCertificateEntry(alias, x509.generateCertificate(in));
      }
    }
    if (certs.isEmpty()) throw new IllegalStateException("no *.crt under " + args[0]);
    try (OutputStream out = Files.newOutputStream(Path.of(args[1]))) {
      store.store(out, "changeit".toCharArray());
    }
    System.out.println("trust store: " + certs.size() + " CA certificates -> " + args[1]);
  }
}
