package io.etcdrunbooks.activities.host;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ServiceSpec;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** PID 1 is not systemd here, so only the commands are checked. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SystemdServiceManagerTest {

  private final SshConnector ssh = new SshConnector();

  @AfterEach
  void close() {
    ssh.close();
  }

  @Test
  void rootRunsSystemctlDirectly() {
    SystemdServiceManager etcd = new SystemdServiceManager(ssh, null);

    assertThat(etcd.isActiveCommand("root")).isEqualTo("systemctl is-active --quiet etcd");
    assertThat(etcd.startCommand("root")).isEqualTo("systemctl start --no-block etcd");
    assertThat(etcd.stopCommand("root")).isEqualTo("systemctl stop etcd");
    assertThat(etcd.logTailCommand("root", 50)).isEqualTo("journalctl -u etcd -n 50 --no-pager");
  }

  @Test
  void otherUsersGoThroughNonInteractiveSudoAndUnitNamesAreQuoted() {
    SystemdServiceManager etcd = new SystemdServiceManager(ssh, "etcd member;1");

    assertThat(etcd.startCommand("ops"))
        .isEqualTo("sudo -n systemctl start --no-block 'etcd member;1'");
    assertThat(etcd.stopCommand("ops")).isEqualTo("sudo -n systemctl stop 'etcd member;1'");
    assertThat(etcd.isActiveCommand("ops"))
        .as("reading the state needs no sudo rule")
        .isEqualTo("systemctl is-active --quiet 'etcd member;1'");
    assertThat(etcd.logTailCommand("ops", 0))
        .isEqualTo("sudo -n journalctl -u 'etcd member;1' -n 1 --no-pager");
  }

  @Test
  void theInventorysSudoSettingWinsOverTheUserName() {
    assertThat(new SystemdServiceManager(ssh, "etcd", false).startCommand("ops"))
        .isEqualTo("systemctl start --no-block etcd");
    assertThat(new SystemdServiceManager(ssh, "etcd", true).stopCommand("root"))
        .isEqualTo("sudo -n systemctl stop etcd");
    assertThat(RootShell.asRoot(new ServiceSpec("systemd", "etcd"), "ops", "echo ok"))
        .isEqualTo("sudo -n /bin/sh -c 'echo ok'");
    assertThat(RootShell.asRoot(new ServiceSpec("systemd", "etcd"), "root", "echo ok"))
        .isEqualTo("echo ok");
  }

  @Test
  void theServiceKindPicksTheManager() {
    assertThat(ServiceManager.of(new ServiceSpec("systemd", "etcd-main"), ssh))
        .isInstanceOf(SystemdServiceManager.class);
    assertThat(ServiceManager.of(new ServiceSpec("plain", null), ssh))
        .isInstanceOf(PlainProcessServiceManager.class);
  }

  @Test
  void theUnitsStateTellsReadyFromWaitingForPeersFromFailing() {
    var ready =
        SystemdServiceManager.UnitState.parse(
            "ActiveState=active\nSubState=running\nMainPID=812\n");
    var waiting =
        SystemdServiceManager.UnitState.parse(
            "ActiveState=activating\nSubState=start\nMainPID=812\n");
    var restarting =
        SystemdServiceManager.UnitState.parse(
            "ActiveState=activating\nSubState=auto-restart\nMainPID=0\n");
    var failed =
        SystemdServiceManager.UnitState.parse("ActiveState=failed\nSubState=failed\nMainPID=0\n");

    assertThat(ready.ready()).isTrue();
    assertThat(waiting.ready()).isFalse();
    assertThat(waiting.activatingWithProcess()).isTrue();
    assertThat(waiting.failed()).isFalse();
    assertThat(restarting.failed()).as("systemd has not given up yet").isFalse();
    assertThat(restarting.restarting()).isTrue();
    assertThat(restarting.activatingWithProcess()).isFalse();
    assertThat(failed.failed()).isTrue();
    assertThat(failed.describe()).isEqualTo("ActiveState=failed, SubState=failed");
  }
}
