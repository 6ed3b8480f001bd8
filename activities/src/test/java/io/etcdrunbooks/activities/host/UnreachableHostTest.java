package io.etcdrunbooks.activities.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.activities.release.LocalDirReleaseStore;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.ReleaseSource;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.inventory.SshSpec;
import io.etcdrunbooks.workflows.activities.HostActivities;
import io.etcdrunbooks.workflows.activities.NewMemberActivities;
import io.etcdrunbooks.workflows.activities.NewMemberActivities.NewMemberRequest;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.temporal.activity.ActivityOptions;
import io.temporal.common.RetryOptions;
import io.temporal.failure.ActivityFailure;
import io.temporal.testing.TestActivityEnvironment;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A host whose SSH port refuses connections: what a runbook shows (the innermost cause's message,
 * as {@link Failures#rootMessage} reads it through Temporal) names the host, its address and port
 * and what to check, rather than a bare "Connection refused".
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class UnreachableHostTest {

  private final SshConnector ssh = new SshConnector(Duration.ofSeconds(5));
  private TestActivityEnvironment env;
  private int closedPort;

  @BeforeEach
  void start() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    MemberSpec m1 =
        new MemberSpec(
            "m1",
            "localhost",
            closedPort,
            "http://127.0.0.1:2379",
            "http://127.0.0.1:2380",
            "/var/lib/etcd",
            "/opt/etcd",
            "/etc/etcd");
    ClusterSpec cluster =
        new ClusterSpec(
            "prod",
            List.of(m1),
            new ServiceSpec(ServiceSpec.STATIC_POD, null),
            new SshSpec(
                "ops", 22, "/etc/etcd-runbooks/id_ed25519", "/etc/etcd-runbooks/known_hosts"),
            null,
            "/var/backups",
            List.of(),
            null);
    Inventory inventory =
        new Inventory(
            new ReleaseSource(LocalDirReleaseStore.defaultDir().toString(), null, Map.of(), null),
            Map.of("prod", cluster));
    env = TestActivityEnvironment.newInstance();
    env.registerActivitiesImplementations(
        new HostActivitiesImpl(
            new ClusterTargets(() -> inventory, ssh),
            new LocalDirReleaseStore(LocalDirReleaseStore.defaultDir())),
        new NewMemberActivitiesImpl(
            new ClusterTargets(() -> inventory, ssh),
            new LocalDirReleaseStore(LocalDirReleaseStore.defaultDir())));
  }

  @AfterEach
  void stop() {
    env.close();
    ssh.close();
  }

  @Test
  void aReplacementDryRunToAHostThatRefusesSshNamesTheHostItsAddressAndPort() {
    NewMemberActivities newMember = env.newActivityStub(NewMemberActivities.class, once());
    MemberPlacement replacement =
        new MemberPlacement(
            "m4",
            "localhost",
            closedPort,
            "http://127.0.0.1:2390",
            "http://127.0.0.1:2389",
            "/var/lib/etcd",
            null,
            null);

    assertThatThrownBy(
            () -> newMember.checkHost(new NewMemberRequest("prod", replacement, "3.5.16")))
        .isInstanceOf(ActivityFailure.class)
        .satisfies(
            e ->
                assertThat(Failures.rootMessage(e))
                    .contains(
                        "cannot connect to SSH on localhost (127.0.0.1) port " + closedPort,
                        "connection refused",
                        "SSH server listens on port " + closedPort,
                        "firewall"));
  }

  @Test
  void aMemberOnAHostThatRefusesSshIsNamedTheSameWay() {
    HostActivities host = env.newActivityStub(HostActivities.class, once());

    assertThatThrownBy(() -> host.installedVersion(new MemberRef("prod", "m1")))
        .isInstanceOf(ActivityFailure.class)
        .satisfies(
            e ->
                assertThat(Failures.rootMessage(e))
                    .contains(
                        "cannot connect to SSH on localhost (127.0.0.1) port " + closedPort,
                        "connection refused"));
  }

  private static ActivityOptions once() {
    return ActivityOptions.newBuilder()
        .setStartToCloseTimeout(Duration.ofSeconds(30))
        .setRetryOptions(RetryOptions.newBuilder().setMaximumAttempts(1).build())
        .build();
  }
}
