package io.etcdrunbooks.activities.kubernetes;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A kubeconfig holds credentials: it is refused unless it is a secret file, and never shown. */
class KubeconfigTest {

  private static final String TOKEN = "0123456789abcdef-secret-token";
  private static final String KEY =
      "-----BEGIN RSA PRIVATE KEY-----\nTUlJRXBBSUJBQUtDQVFFQS1zZWNyZXQta2V5\n-----END RSA PRIVATE KEY-----\n";

  @TempDir Path dir;

  @Test
  void aKubeconfigOthersCanReadIsRefusedNamingTheFileAndTheFixNeverTheToken() throws Exception {
    Path file = write("token: " + TOKEN, "");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));

    assertThatThrownBy(() -> Kubeconfig.load(file))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining("chmod 600")
        .hasMessageNotContaining(TOKEN);
  }

  @Test
  void credentialsThatCannotBeReadAreRefusedNamingTheFileNeverWhatItHolds() throws Exception {
    Path file =
        write(
            "client-certificate-data: "
                + base64(
                    "-----BEGIN CERTIFICATE-----\nnot-a-certificate\n-----END CERTIFICATE-----\n")
                + "\n    client-key-data: "
                + base64(KEY),
            "");

    assertThatThrownBy(() -> Kubeconfig.load(file))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("kubeconfig " + file + " cannot be used")
        .hasMessageNotContaining("secret-key")
        .hasMessageNotContaining(base64(KEY));
  }

  @Test
  void aClusterThatSkipsTlsVerificationIsRefused() throws Exception {
    Path file = write("token: " + TOKEN, "    insecure-skip-tls-verify: true\n");

    assertThatThrownBy(() -> Kubeconfig.load(file))
        .hasMessageContaining("insecure-skip-tls-verify")
        .hasMessageNotContaining(TOKEN);
  }

  private Path write(String user, String clusterExtra) throws Exception {
    Path file = dir.resolve("admin.conf");
    Files.writeString(
        file,
        """
        apiVersion: v1
        kind: Config
        clusters:
        - name: k
          cluster:
            server: https://10.0.0.1:6443
            certificate-authority-data: %s
        %scontexts:
        - name: admin@k
          context: {cluster: k, user: admin}
        current-context: admin@k
        users:
        - name: admin
          user:
            %s
        """
            .formatted(base64("not a CA"), clusterExtra, user));
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    return file;
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }
}
