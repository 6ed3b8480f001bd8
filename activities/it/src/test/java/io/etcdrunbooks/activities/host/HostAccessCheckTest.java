package io.etcdrunbooks.activities.host;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.ssh.SshTarget;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.ControlPlaneHost;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.testkit.EtcdReleases;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The access check before a runbook's first change, against a 1-member sandbox host: what it finds
 * and how it says it.
 */
@RealEtcd
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class HostAccessCheckTest {

  private Path tmp;
  private Sandbox sandbox;
  private SshConnector ssh;
  private HostAccessCheck check;

  @BeforeAll
  void start(@TempDir Path dir) {
    tmp = dir;
    sandbox =
        Sandbox.create(
            new SandboxSpec(tmp.resolve("sb"), "access", 1, "3.4.23"), EtcdReleases.store());
    ssh = new SshConnector(Duration.ofSeconds(10));
    check = new HostAccessCheck(ssh);
  }

  @AfterAll
  void stop() {
    if (ssh != null) ssh.close();
    if (sandbox != null) sandbox.close();
  }

  @Test
  void aHostTheRunbooksCanUseHasNoProblems() {
    assertThat(check.problems(sandbox.cluster(), List.of(), true)).isEmpty();
  }

  @Test
  void aMissingInstallDirIsNamedWithTheMemberItsAddressAndTheNextStep() {
    MemberSpec m1 = sandbox.cluster().member("m1");
    String missing = tmp.resolve("no-such-install-dir").toString();
    ClusterSpec cluster =
        sandbox
            .cluster()
            .withMembers(
                List.of(
                    new MemberSpec(
                        m1.name(),
                        m1.host(),
                        m1.sshPort(),
                        m1.clientUrl(),
                        m1.peerUrl(),
                        m1.dataDir(),
                        missing,
                        m1.serviceDir())));

    assertThat(check.problems(cluster, List.of(), false))
        .singleElement()
        .asString()
        .contains(
            "member m1 (127.0.0.1:"
                + m1.sshPort()
                + ") cannot run the runbook's commands: installDir "
                + missing
                + " is not a directory "
                + m1Target().user()
                + " can write")
        .contains("Next: fix that on the host");
    assertThat(check.problems(cluster, List.of("m1"), false))
        .as("a member left out is not looked at")
        .isEmpty();
  }

  @Test
  void aControlPlaneHostsManifestDirectoryMustBeWritableOnlyWhenTheRunbookEditsIt()
      throws Exception {
    MemberSpec m1 = sandbox.cluster().member("m1");
    Path manifests = Files.createDirectories(tmp.resolve("cp/manifests"));
    ControlPlaneHost usable =
        new ControlPlaneHost(
            "cp-1",
            m1.host(),
            m1.sshPort(),
            manifests + "/kube-apiserver.yaml",
            "http://127.0.0.1:1/readyz");
    ControlPlaneHost missing =
        new ControlPlaneHost(
            "cp-2",
            m1.host(),
            m1.sshPort(),
            tmp + "/gone/kube-apiserver.yaml",
            "http://127.0.0.1:1/readyz");
    ClusterSpec cluster = withControlPlane(List.of(usable, missing));

    assertThat(check.problems(cluster, List.of(), false)).isEmpty();
    assertThat(check.problems(cluster, List.of(), true))
        .singleElement()
        .asString()
        .contains(
            "control-plane host cp-2 (127.0.0.1:" + m1.sshPort() + ")",
            "the kube-apiserver manifest's directory " + tmp + "/gone");
  }

  @Test
  void aHostWhoseKeyIsNotTheOneKnownIsNamedAndNothingElseIsTried() throws Exception {
    Path otherKnownHosts =
        Files.writeString(
            tmp.resolve("known_hosts_other"), "[127.0.0.1]:1 ecdsa-sha2-nistp256 AAAA\n");
    ClusterSpec cluster = sandbox.cluster();
    ClusterSpec distrusted =
        new ClusterSpec(
            cluster.name(),
            cluster.members(),
            cluster.service(),
            new io.etcdrunbooks.inventory.SshSpec(
                cluster.ssh().user(),
                0,
                cluster.ssh().privateKeyFile(),
                otherKnownHosts.toString()),
            cluster.tls(),
            cluster.backupDir(),
            cluster.controlPlane(),
            cluster.backup());

    assertThat(check.problems(distrusted, List.of(), false))
        .singleElement()
        .asString()
        .contains(
            "member m1 (127.0.0.1:"
                + m1Target().port()
                + "): host key of 127.0.0.1:"
                + m1Target().port()
                + " (ecdsa-sha2-nistp256",
            "is not in the known_hosts file " + otherKnownHosts);
  }

  @Test
  void staticPodHostsAreCheckedForSudoAndTheManifestsDirectoryThroughIt() {
    MemberHost host =
        new MemberHost(
            "kube",
            sandbox.cluster().member("m1"),
            new SshTarget("10.0.0.1", 22, "ops", "/k", "/kh"));
    String script =
        HostAccessCheck.memberScript(new ServiceSpec(ServiceSpec.STATIC_POD, null), host);

    assertThat(script)
        .contains(
            "sudo -n true",
            "sudo -n test -d /etc/kubernetes/manifests",
            "command -v \"$c\"",
            "pgrep");
    assertThat(HostAccessCheck.memberScript(new ServiceSpec(ServiceSpec.SYSTEMD, "etcd"), host))
        .as("each sudo rule asked of sudo, not run")
        .contains(
            "systemctl",
            "sudo -n -l /usr/bin/systemctl stop etcd",
            "sudo -n -l /bin/sh -c true",
            "ops ALL=(root) NOPASSWD: /usr/bin/systemctl stop etcd",
            "/etc/sudoers.d/etcd-runbooks")
        .doesNotContain("sudo -n true");
  }

  private SshTarget m1Target() {
    return SshTarget.of(sandbox.cluster(), sandbox.cluster().member("m1"));
  }

  private ClusterSpec withControlPlane(List<ControlPlaneHost> hosts) {
    ClusterSpec c = sandbox.cluster();
    return new ClusterSpec(
        c.name(), c.members(), c.service(), c.ssh(), c.tls(), c.backupDir(), hosts, c.backup());
  }
}
