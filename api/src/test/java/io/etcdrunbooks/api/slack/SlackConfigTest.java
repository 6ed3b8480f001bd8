package io.etcdrunbooks.api.slack;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.api.auth.Role;
import io.micronaut.context.ApplicationContext;
import io.micronaut.context.exceptions.BeanInstantiationException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Binding and checking of runbooks.slack, and the signing secret file. */
class SlackConfigTest {

  @TempDir Path dir;

  @Test
  void defaultsMeanNoSecretNoUsersAndSlacksOwnResponseUrls() {
    try (ApplicationContext context = ApplicationContext.run()) {
      SlackConfig config = context.getBean(SlackConfig.class);
      assertThat(config.signingSecretFile()).isEmpty();
      assertThat(config.responseUrlPrefix()).isEqualTo("https://hooks.slack.com/");
      assertThat(config.progressIntervalSeconds()).isEqualTo(5);
      assertThat(config.slackUsers().size()).isZero();
      assertThat(context.getBean(SlackSigningSecret.class).unusable())
          .get()
          .asString()
          .contains("signing-secret-file");
    }
  }

  @Test
  void usersMapSlackIdsKeptAsWrittenToRolesAndClusters() {
    try (ApplicationContext context =
        ApplicationContext.run(
            Map.of(
                "runbooks.slack.users.U024BE7LH.role", "operator",
                "runbooks.slack.users.U024BE7LH.clusters", "prod-*,staging-1",
                "runbooks.slack.users.W0ABCDEF.role", "Viewer"))) {
      SlackUsers users = context.getBean(SlackConfig.class).slackUsers();
      assertThat(users.size()).isEqualTo(2);
      assertThat(users.find("U024BE7LH"))
          .get()
          .satisfies(
              u -> {
                assertThat(u.role()).isEqualTo(Role.OPERATOR);
                assertThat(u.clusters()).containsExactly("prod-*", "staging-1");
                assertThat(u.asCaller("alice").mayActOn("prod-2")).isTrue();
                assertThat(u.asCaller("alice").mayActOn("dev-1")).isFalse();
                assertThat(u.asCaller("alice").name()).isEqualTo("slack:alice/U024BE7LH");
              });
      assertThat(users.find("w0abcdef"))
          .get()
          .extracting(SlackUsers.SlackUser::role)
          .isEqualTo(Role.VIEWER);
      assertThat(users.find("U999")).isEmpty();
      assertThat(users.find(null)).isEmpty();
    }
  }

  @Test
  void usersAsNestedYamlMapsWithAClusterList() {
    SlackUsers users =
        SlackUsers.parse(Map.of("U1AB", Map.of("role", "admin", "clusters", List.of("a", "b-*"))));
    assertThat(users.find("U1AB"))
        .get()
        .satisfies(u -> assertThat(u.clusters()).containsExactly("a", "b-*"));
  }

  @Test
  void aWrongUserEntryStopsTheStartNamingTheKey() {
    assertThatThrownBy(() -> SlackUsers.parse(Map.of("U1AB", Map.of("role", "root"))))
        .hasMessageContaining("runbooks.slack.users.U1AB.role")
        .hasMessageContaining("viewer, operator or admin");
    assertThatThrownBy(() -> SlackUsers.parse(Map.of("U1AB", Map.of("clusters", "a"))))
        .hasMessageContaining("runbooks.slack.users.U1AB.role");
    assertThatThrownBy(
            () -> SlackUsers.parse(Map.of("U1AB", Map.of("role", "viewer", "cluster", "a"))))
        .hasMessageContaining("runbooks.slack.users.U1AB.cluster is not a setting");
    assertThatThrownBy(() -> SlackUsers.parse(Map.of("U1AB", "operator")))
        .hasMessageContaining("must hold role");
    assertThatThrownBy(() -> SlackUsers.parse(Map.of("alice@example", Map.of("role", "viewer"))))
        .hasMessageContaining("Slack user id");
    assertThatThrownBy(
            () -> ApplicationContext.run(Map.of("runbooks.slack.users.U1AB.role", "superuser")))
        .isInstanceOf(BeanInstantiationException.class)
        .hasStackTraceContaining("runbooks.slack.users.U1AB.role");
  }

  @Test
  void theResponseUrlPrefixMustBeAnHttpUrlEndingInASlash() {
    for (String bad :
        List.of(
            "https://hooks.slack.com",
            "hooks.slack.com/",
            "ftp://hooks.slack.com/",
            "https:///x/",
            "https://user@hooks.slack.com/")) {
      assertThatThrownBy(() -> new SlackConfig("", bad, 5, Map.of(), "", "", ""))
          .as(bad)
          .hasMessageContaining("response-url-prefix");
    }
    assertThat(
            new SlackConfig("", "http://127.0.0.1:8080/", 5, null, "", "", "").responseUrlPrefix())
        .isEqualTo("http://127.0.0.1:8080/");
    assertThatThrownBy(() -> new SlackConfig("", "https://hooks.slack.com/", 0, null, "", "", ""))
        .hasMessageContaining("progress-interval");
  }

  @Test
  void theApprovalsChannelMustLookLikeAChannelAndNeedsTheBotToken() {
    assertThat(
            new SlackConfig("", "https://hooks.slack.com/", 5, null, "/etc/t", "", "#etcd-ops")
                .approvalsChannel())
        .isEqualTo("#etcd-ops");
    assertThatThrownBy(
            () -> new SlackConfig("", "https://hooks.slack.com/", 5, null, "/etc/t", "", "a b"))
        .hasMessageContaining("approvals-channel is 'a b'");
    assertThatThrownBy(
            () -> new SlackConfig("", "https://hooks.slack.com/", 5, null, "", "", "C0123ABCD"))
        .hasMessageContaining("approvals-channel is set but runbooks.slack.bot-token-file is not");
  }

  @Test
  void theSecretFileMustBeReadableByItsOwnerOnly() throws Exception {
    Path file = secretFile("rw-r-----", "s3cr3t-signing-secret\n");
    SlackSigningSecret secret = new SlackSigningSecret(file.toString());
    assertThat(secret.key()).isEmpty();
    assertThat(secret.unusable())
        .get()
        .asString()
        .contains(file + " has mode 0640: its group may read it", "chmod 600 " + file)
        .doesNotContain("s3cr3t");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    assertThat(secret.key()).get().isEqualTo("s3cr3t-signing-secret".getBytes());
    assertThat(secret.unusable()).isEmpty();
    // a chmod does not change the mtime: it is noticed all the same
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw----r--"));
    assertThat(secret.key()).isEmpty();
  }

  @Test
  void aMissingOrEmptySecretFileLoadsNoSecret() throws Exception {
    SlackSigningSecret missing = new SlackSigningSecret(dir.resolve("nope").toString());
    assertThat(missing.key()).isEmpty();
    assertThat(missing.unusable()).get().asString().contains("cannot read", "NoSuchFileException");
    SlackSigningSecret empty = new SlackSigningSecret(secretFile("rw-------", " \n").toString());
    assertThat(empty.key()).isEmpty();
    assertThat(empty.unusable()).get().asString().contains("is empty");
  }

  @Test
  void aRotatedSecretIsReadWithoutARestart() throws Exception {
    Path file = secretFile("rw-------", "first");
    SlackSigningSecret secret = new SlackSigningSecret(file.toString());
    assertThat(secret.key()).get().isEqualTo("first".getBytes());
    Files.writeString(file, "second");
    Files.setLastModifiedTime(
        file, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() + 5_000));
    assertThat(secret.key()).get().isEqualTo("second".getBytes());
  }

  private Path secretFile(String mode, String content) throws Exception {
    Path file = dir.resolve("slack-signing-secret-" + System.nanoTime());
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, content);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
    return file;
  }
}
