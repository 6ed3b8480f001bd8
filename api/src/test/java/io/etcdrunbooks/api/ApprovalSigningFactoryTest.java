package io.etcdrunbooks.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.etcdrunbooks.workflows.common.ApprovalSigning;
import io.etcdrunbooks.workflows.common.ApproveRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The approval signing key file: read as a secret file, its key never in a message; two processes
 * reading the same file sign and check alike, and the check can be turned off.
 */
class ApprovalSigningFactoryTest {

  private static final String KEY = Base64.getEncoder().encodeToString(new byte[48]);

  @TempDir Path dir;

  @Test
  void theApiAndTheWorkerReadingOneKeyFileAgreeOnATokenAndOnlyOnIt() throws Exception {
    Path file = keyFile(KEY + "\n", "rw-------");
    ApprovalSigning api = new ApprovalSigningFactory().approvalSigning(file.toString(), true);
    ApprovalSigning worker = new ApprovalSigningFactory().approvalSigning(file.toString(), true);

    var token = api.sign("change-c1", "plan", "sre-lead", "admin", 2_000);
    ApproveRequest request = new ApproveRequest("sre-lead", "plan", token);

    assertThat(worker.whyNot("change-c1", request, "admin", 1_000)).isEmpty();
    assertThat(worker.whyNot("change-c2", request, "admin", 1_000)).isPresent();
    assertThat(worker.toString()).doesNotContain(KEY);
  }

  @Test
  void aKeyFileOthersMayReadOrThatHoldsNoKeyIsRefusedWithoutShowingIt() throws Exception {
    Path open = keyFile(KEY, "rw-r--r--");
    assertThat(catchThrowable(() -> factory(open))).hasMessageContaining("chmod 600");

    Path notBase64 = keyFile("not base64 at all!", "rw-------");
    assertThat(catchThrowable(() -> factory(notBase64)))
        .hasMessageContaining("does not hold base64")
        .hasMessageNotContaining("not base64 at all!");

    Path shortKey = keyFile(Base64.getEncoder().encodeToString(new byte[16]), "rw-------");
    assertThat(catchThrowable(() -> factory(shortKey))).hasMessageContaining("at least 32 bytes");
  }

  @Test
  void turnedOffItAsksForNoToken() throws Exception {
    ApprovalSigning off = new ApprovalSigningFactory().approvalSigning("", false);

    assertThat(off.required()).isFalse();
    assertThat(off.whyNot("change-c1", ApproveRequest.of("anyone", "plan"), "admin", 0)).isEmpty();
  }

  private ApprovalSigning factory(Path file) throws Exception {
    return new ApprovalSigningFactory().approvalSigning(file.toString(), true);
  }

  private Path keyFile(String text, String mode) throws Exception {
    Path file = Files.createTempFile(dir, "approvals", ".key");
    Files.writeString(file, text);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
    return file;
  }
}
