package io.etcdrunbooks.workflows.common;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.KeyspaceHash;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.restore.RestoreRequest;
import io.etcdrunbooks.workflows.rollback.RollbackRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Runbook inputs are built by name (factories, {@link RunbookOptions}, withers), never by position:
 * their canonical constructors stay only for Jackson and the histories that hold them. So is the
 * backup's record, by its builder.
 */
class RequestConstructionTest {

  private static final Pattern POSITIONAL =
      Pattern.compile(
          "new (UpgradeRequest|RollbackRequest|RestoreRequest|ReplaceMemberRequest|BackupClusterRequest"
              + "|MigrateRequest|ReconfigureTlsRequest|BackupRecord)\\(");

  @Test
  void noCodeOutsideARequestRecordCallsItsConstructor() throws IOException {
    Path root = Path.of("").toAbsolutePath().getParent();
    List<String> positional = new ArrayList<>();
    try (Stream<Path> files = Files.walk(root)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        // this test compares the named forms with the canonical constructors
        if (f.toString().contains("/target/") || f.endsWith("RequestConstructionTest.java"))
          continue;
        String name = f.getFileName().toString().replace(".java", "");
        var m = POSITIONAL.matcher(Files.readString(f));
        while (m.find())
          if (!m.group(1).equals(name)) positional.add(root.relativize(f) + ": " + m.group());
      }
    }
    assertThat(positional).isEmpty();
  }

  @Test
  void theNamedFormsBuildWhatThePositionalOnesDid() {
    RunbookOptions options =
        RunbookOptions.defaults().asDryRun().withApproval().withMemberTimeoutSeconds(60);
    assertThat(UpgradeRequest.to("c", "3.5.16", options))
        .isEqualTo(new UpgradeRequest("c", "3.5.16", true, 60, true));
    assertThat(
            RollbackRequest.to("c", "3.4.23", options).acknowledgingDataLoss().withBackupId("b1"))
        .isEqualTo(new RollbackRequest("c", "3.4.23", true, 60, true, "b1", true, false));
    assertThat(
            RestoreRequest.of("c", "b1", options.withApiServerTimeoutSeconds(30))
                .acknowledgingDataLoss()
                .withEtcdVersion("3.4.23")
                .withTakenOnMinor("3.5"))
        .isEqualTo(
            new RestoreRequest(
                "c",
                "b1",
                true,
                "3.4.23",
                true,
                60,
                30,
                "3.5",
                true,
                false,
                java.util.List.of(),
                false,
                0));
    MemberPlacement placed = new MemberPlacement("n1", "h1", 22, "", "", "", "", "");
    assertThat(
            RestoreRequest.of("c", "b1", RunbookOptions.defaults())
                .withRevisionsBackwardAcknowledged(true)
                .withNewMembers(List.of(placed))
                .withEncryptionConfigPutBack(true)
                .withControllersOutSeconds(40)
                .withDataLossAcknowledged(true))
        .isEqualTo(
            new RestoreRequest(
                "c", "b1", true, null, false, 0, 0, "", false, true, List.of(placed), true, 40));
    assertThat(UpgradeRequest.to("c", "3.5.16", options).options()).isEqualTo(options);
  }

  @Test
  void theBackupRecordsBuilderBuildsWhatThePositionalConstructorDid() {
    KeyspaceHash hashed = new KeyspaceHash(77, 5, 99);
    BackupRecord built =
        BackupRecord.builder()
            .id("b1")
            .cluster("c")
            .member("m2")
            .etcdVersion("3.5.30")
            .revision(77)
            .hash(123)
            .keyCount(300)
            .sizeBytes(4096)
            .sha256("ab")
            .path("/b/b1.db.enc")
            .takenAt("2026-11-23T00:00:00Z")
            .encrypted(true)
            .keyId("k1")
            .liveKeys(250)
            .keyspaceHash(hashed)
            .build();
    BackupRecord positional =
        new BackupRecord(
            "b1",
            "c",
            "m2",
            "3.5.30",
            77,
            123,
            300,
            4096,
            "ab",
            "/b/b1.db.enc",
            "2026-11-23T00:00:00Z",
            true,
            "k1",
            250,
            hashed,
            List.of(),
            "",
            "");
    assertThat(built).isEqualTo(positional);
    assertThat(built.toBuilder().build()).isEqualTo(built);
    assertThat(built.withEncryptionConfig(List.of("aescbc/key1"), "/b/b1.ec.enc", "cd"))
        .isEqualTo(
            new BackupRecord(
                "b1",
                "c",
                "m2",
                "3.5.30",
                77,
                123,
                300,
                4096,
                "ab",
                "/b/b1.db.enc",
                "2026-11-23T00:00:00Z",
                true,
                "k1",
                250,
                hashed,
                List.of("aescbc/key1"),
                "/b/b1.ec.enc",
                "cd"));
  }
}
