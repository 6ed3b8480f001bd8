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
    assertThat(etcd.startCommand("root")).isEqualTo("systemctl start etcd");
    assertThat(etcd.stopCommand("root")).isEqualTo("systemctl stop etcd");
    assertThat(etcd.logTailCommand("root", 50)).isEqualTo("journalctl -u etcd -n 50 --no-pager");
  }

  @Test
  void otherUsersGoThroughNonInteractiveSudoAndUnitNamesAreQuoted() {
    SystemdServiceManager etcd = new SystemdServiceManager(ssh, "etcd member;1");

    assertThat(etcd.startCommand("ops")).isEqualTo("sudo -n systemctl start 'etcd member;1'");
    assertThat(etcd.logTailCommand("ops", 0))
        .isEqualTo("sudo -n journalctl -u 'etcd member;1' -n 1 --no-pager");
  }

  @Test
  void theServiceKindPicksTheManager() {
    assertThat(ServiceManager.of(new ServiceSpec("systemd", "etcd-main"), ssh))
        .isInstanceOf(SystemdServiceManager.class);
    assertThat(ServiceManager.of(new ServiceSpec("plain", null), ssh))
        .isInstanceOf(PlainProcessServiceManager.class);
  }
}
