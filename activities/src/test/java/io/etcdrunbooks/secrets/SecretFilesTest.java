package io.etcdrunbooks.secrets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.security.auth.module.UnixSystem;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The one rule for secret files: a regular file of this process's user or root, for its owner only.
 */
class SecretFilesTest {

  private static final String SECRET = "s3cr3t-value";

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"rw-------", "r--------"})
  void aFileForItsOwnerOnlyIsRead(String mode) throws Exception {
    Path file = secretFile("ok", mode);

    assertThat(SecretFiles.readString("the test secret", file)).isEqualTo(SECRET);
    assertThat(SecretFiles.readAllBytes("the test secret", file)).isEqualTo(SECRET.getBytes());
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "rw-r-----|0640|its group may read it",
        "rw----r--|0604|others may read it",
        "rw-r--r--|0644|its group may read it and others may read it",
        "rw--w----|0620|its group may write it",
        "rw----rw-|0606|others may read and write it",
        "rwx--x---|0710|its group may execute it"
      })
  void aFileOpenToItsGroupOrOthersIsRefusedNamingItsModeAndTheFix(
      String mode, String octal, String what) throws Exception {
    Path file = secretFile("open", mode);

    assertThatThrownBy(() -> SecretFiles.readString("the test secret", file))
        .isInstanceOf(SecretFiles.Refused.class)
        .hasMessage(
            "the test secret "
                + file
                + " has mode "
                + octal
                + ": "
                + what
                + "; a secret file must be for its owner only (0600 or 0400): chmod 600 "
                + file);
  }

  @Test
  void aSymbolicLinkIsFollowedAndTheFileItLeadsToIsChecked() throws Exception {
    // a Kubernetes Secret volume: keys.yaml -> ..data/keys.yaml
    Path target = secretFile("target", "r--------");
    Path link = Files.createSymbolicLink(dir.resolve("link"), target);
    assertThat(SecretFiles.readString("the test secret", link)).isEqualTo(SECRET);

    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("r--r-----"));
    assertThatThrownBy(() -> SecretFiles.check("the test secret", link))
        .isInstanceOf(SecretFiles.Refused.class)
        .hasMessageContaining(link + " has mode 0440", "chmod 600 " + link);
  }

  @Test
  void aDirectoryIsRefused() throws Exception {
    Path sub =
        Files.createDirectory(
            dir.resolve("sub"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));

    assertThatThrownBy(() -> SecretFiles.check("the test secret", sub))
        .isInstanceOf(SecretFiles.Refused.class)
        .hasMessageContaining("the test secret " + sub + " is not a regular file (a directory)");
  }

  @Test
  void aFileOfAnotherUserIsRefusedNamingTheOwner() throws Exception {
    assumeTrue(new UnixSystem().getUid() == 0, "only root can give a file to another user");
    Path file = secretFile("theirs", "rw-------");
    Files.setAttribute(file, "unix:uid", 4242);

    assertThatThrownBy(() -> SecretFiles.check("the test secret", file))
        .isInstanceOf(SecretFiles.Refused.class)
        .hasMessageContaining(
            "the test secret " + file + " is owned by",
            "(uid 4242), not by the user this process runs as (uid 0)",
            "chown 0 " + file);
  }

  @Test
  void aMissingFileIsAnIoProblemNotARefusal() {
    assertThatThrownBy(() -> SecretFiles.check("the test secret", dir.resolve("absent")))
        .isInstanceOf(NoSuchFileException.class)
        .isNotInstanceOf(SecretFiles.Refused.class);
  }

  @Test
  void modesAreShownAsChmodTakesThem() {
    assertThat(SecretFiles.octal(PosixFilePermissions.fromString("rw-------"))).isEqualTo("0600");
    assertThat(SecretFiles.octal(PosixFilePermissions.fromString("rwxr-x--x"))).isEqualTo("0751");
    assertThat(SecretFiles.octal(PosixFilePermissions.fromString("---------"))).isEqualTo("0000");
  }

  private Path secretFile(String name, String mode) throws Exception {
    Path file =
        Files.createFile(
            dir.resolve(name),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, SECRET);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
    return file;
  }
}
