package io.etcdrunbooks.activities.host;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@code systemctl show} output as systemd 252 (Debian bookworm) printed it on a machine. */
class SystemdUnitTest {

  private static final String PACKAGED =
      """
      LoadState=loaded
      ExecStart={ path=/opt/etcd/current/etcd ; argv[]=/opt/etcd/current/etcd ; ignore_errors=no ; start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }
      EnvironmentFiles=/etc/etcd/etcd.env (ignore_errors=no)
      User=
      FragmentPath=/etc/systemd/system/etcd.service
      DropInPaths=
      """;

  private static final String WITH_DROP_IN =
      """
      LoadState=loaded
      ExecStart={ path=/usr/local/bin/etcd ; argv[]=/usr/local/bin/etcd --name m1 --data-dir=/var/lib/etcd ; ignore_errors=no ; start_time=[n/a] ; stop_time=[n/a] ; pid=0 ; code=(null) ; status=0/0 }
      EnvironmentFiles=/etc/etcd/other.env (ignore_errors=yes)
      EnvironmentFiles=/etc/etcd/etcd.env (ignore_errors=no)
      User=etcd
      FragmentPath=/lib/systemd/system/etcd.service
      DropInPaths=/etc/systemd/system/etcd.service.d/10-a.conf /etc/systemd/system/etcd.service.d/x.conf
      """;

  @Test
  void aUnitWithItsEnvironmentFileGivesTheBinaryAndTheFileAndNoArguments() {
    SystemdUnit unit = SystemdUnit.parse("etcd", PACKAGED);

    assertThat(unit.loaded()).isTrue();
    assertThat(unit.binary()).isEqualTo("/opt/etcd/current/etcd");
    assertThat(unit.arguments()).isEmpty();
    assertThat(unit.environmentFile()).contains("/etc/etcd/etcd.env");
    assertThat(unit.fragmentPath()).isEqualTo("/etc/systemd/system/etcd.service");
    assertThat(unit.dropIns()).isEmpty();
    assertThat(unit.user()).isEmpty();
    assertThat(unit.ownDropIn())
        .isEqualTo("/etc/systemd/system/etcd.service.d/50-etcd-runbooks.conf");
  }

  @Test
  void dropInsArgumentsAnOptionalFileAndTheUserAreRead() {
    SystemdUnit unit = SystemdUnit.parse("etcd.service", WITH_DROP_IN);

    assertThat(unit.binary()).isEqualTo("/usr/local/bin/etcd");
    assertThat(unit.arguments()).containsExactly("--name", "m1", "--data-dir=/var/lib/etcd");
    assertThat(unit.commandLineSets("--name")).isTrue();
    assertThat(unit.commandLineSets("--data-dir")).isTrue();
    assertThat(unit.commandLineSets("--data")).isFalse();
    assertThat(unit.environmentFile())
        .as("the first file that must exist")
        .contains("/etc/etcd/etcd.env");
    assertThat(unit.dropIns()).hasSize(2);
    assertThat(unit.user()).isEqualTo("etcd");
    assertThat(unit.dropInDir()).isEqualTo("/etc/systemd/system/etcd.service.d");
  }

  @Test
  void aUnitSystemdDoesNotKnowIsNotLoaded() {
    SystemdUnit unit =
        SystemdUnit.parse(
            "etcd",
            "LoadState=not-found\nExecStart=\nEnvironmentFiles=\nFragmentPath=\nDropInPaths=\nUser=\n");

    assertThat(unit.loaded()).isFalse();
    assertThat(unit.binary()).isEmpty();
    assertThat(unit.environmentFile()).isEmpty();
  }
}
