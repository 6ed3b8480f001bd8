package io.etcdrunbooks.activities.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.etcdrunbooks.inventory.BackupSpec.ObjectStore;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;

class ObjectStoreCredentialsTest {

  @TempDir Path dir;

  @Test
  void onlyTheDefaultProfileOfTheCredentialsFileIsUsed() throws Exception {
    Path file =
        secret(
            """
            # written by hand
            [other]
            aws_access_key_id = OTHER
            aws_secret_access_key = other-secret
            [default]
            aws_access_key_id = AKIADEFAULT
            aws_secret_access_key = default-secret
            aws_session_token = token-1
            """);

    AwsCredentials credentials =
        ObjectStoreCredentials.provider("prod", store(file)).resolveCredentials();

    assertThat(credentials.accessKeyId()).isEqualTo("AKIADEFAULT");
    assertThat(credentials.secretAccessKey()).isEqualTo("default-secret");
    assertThat(((AwsSessionCredentials) credentials).sessionToken()).isEqualTo("token-1");
  }

  @Test
  void anIncompleteOrOpenFileIsRefusedNamingTheClusterAndFileNeverWhatItHolds() throws Exception {
    Path incomplete = secret("[default]\naws_access_key_id = AKIA-SHOWN-NOWHERE\n");
    ApplicationFailure missing =
        catchThrowableOfType(
            ApplicationFailure.class,
            () -> ObjectStoreCredentials.provider("prod", store(incomplete)));
    assertThat(missing.getOriginalMessage())
        .contains("cluster 'prod'", incomplete.toString(), "aws_secret_access_key")
        .doesNotContain("AKIA-SHOWN-NOWHERE");
    assertThat(missing.isNonRetryable()).isTrue();

    Path open = secret("[default]\naws_access_key_id = a\naws_secret_access_key = open-secret\n");
    Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-r--r--"));
    ApplicationFailure refused =
        catchThrowableOfType(
            ApplicationFailure.class, () -> ObjectStoreCredentials.provider("prod", store(open)));
    assertThat(refused.getOriginalMessage())
        .contains("cluster 'prod'", "chmod 600 " + open)
        .doesNotContain("open-secret");
  }

  @Test
  void objectKeysListByClusterThenUtcTime() {
    BackupRecord record =
        BackupRecord.builder()
            .id("nightly-1")
            .cluster("prod")
            .member("m1")
            .etcdVersion("3.5.30")
            .revision(8)
            .hash(1)
            .keyCount(1)
            .sizeBytes(1)
            .sha256("00")
            .path("/b/nightly-1.db.enc")
            .takenAt("2026-11-27T05:01:02.345Z")
            .encrypted(true)
            .keyId("k")
            .liveKeys(0)
            .build();
    ObjectStore store = new ObjectStore("b", "etcd/backups", null, null, false, null);

    assertThat(ObjectStoreCopy.objectKey(store, record, "nightly-1.db.enc"))
        .isEqualTo("etcd/backups/prod/20261127T050102Z-nightly-1.db.enc");
    assertThat(
            ObjectStoreCopy.objectKey(
                new ObjectStore("b", null, null, null, false, null), record, "nightly-1.json"))
        .isEqualTo("prod/20261127T050102Z-nightly-1.json");
  }

  private Path secret(String text) throws Exception {
    Path file = dir.resolve("credentials-" + System.nanoTime());
    Files.writeString(file, text);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    return file;
  }

  private static ObjectStore store(Path credentialsFile) {
    return new ObjectStore("b", null, null, null, false, credentialsFile.toString());
  }
}
