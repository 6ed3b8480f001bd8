package io.etcdrunbooks.activities.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.activities.ssh.SshTarget;
import io.etcdrunbooks.inventory.MemberSpec;
import io.temporal.failure.ApplicationFailure;
import java.util.List;
import org.junit.jupiter.api.Test;

class SystemdVersionInstallerTest {

  private static final MemberHost HOST =
      new MemberHost(
          "prod-1",
          new MemberSpec(
              "m1",
              "10.0.0.1",
              22,
              "http://10.0.0.1:2379",
              "http://10.0.0.1:2380",
              "/var/lib/etcd",
              "/opt/etcd",
              null),
          new SshTarget("10.0.0.1", 22, "runbooks", "/k", "/kh"));

  @Test
  void aUnitRunningAnotherBinaryGetsADropInRunningTheSelectedVersionWithItsArguments() {
    SystemdUnit kubespray =
        unit("/usr/local/bin/etcd", List.of("--name=m1", "--data-dir", "/var/lib/etcd"));

    assertThat(SystemdVersionInstaller.dropIn(HOST, kubespray))
        .endsWith(
            "[Service]\nExecStart=\n"
                + "ExecStart=/opt/etcd/current/etcd --name=m1 --data-dir /var/lib/etcd\n");
    assertThat(SystemdVersionInstaller.dropIn(HOST, unit("/usr/bin/etcd", List.of())))
        .endsWith("ExecStart=\nExecStart=/opt/etcd/current/etcd\n");
  }

  @Test
  void argumentsSystemdShowsUnquotedAreRefusedNamingThemRatherThanGuessedAt() {
    SystemdUnit quoted = unit("/usr/local/bin/etcd", List.of("--name", "\"m1", "a\"", "--x=$Y"));

    assertThatThrownBy(() -> SystemdVersionInstaller.dropIn(HOST, quoted))
        .isInstanceOf(ApplicationFailure.class)
        .hasMessageContaining("[\"m1, a\", --x=$Y]")
        .hasMessageContaining("/opt/etcd/current/etcd");
  }

  private static SystemdUnit unit(String binary, List<String> arguments) {
    return new SystemdUnit(
        "etcd",
        true,
        binary,
        arguments,
        List.of(new SystemdUnit.EnvironmentFile("/etc/etcd/etcd.env", false)),
        "/lib/systemd/system/etcd.service",
        List.of(),
        "");
  }
}
