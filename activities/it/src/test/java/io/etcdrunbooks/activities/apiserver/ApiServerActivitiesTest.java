package io.etcdrunbooks.activities.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.ControlPlaneStandIns;
import io.etcdrunbooks.testkit.EtcdReleases;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.workflows.activities.ApiServerActivities.AwaitApiServerRequest;
import io.etcdrunbooks.workflows.activities.ApiServerActivities.ControlPlaneRef;
import io.etcdrunbooks.workflows.activities.ApiServerActivities.SetEtcdServersRequest;
import io.temporal.failure.ApplicationFailure;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The manifest edited over real SSH, the health endpoint of a stand-in that reads that manifest as
 * kubelet would.
 */
@RealEtcd
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ApiServerActivitiesTest {

  /** Removed by JUnit after the class: the sandbox's etcd binaries and data take hundreds of MB. */
  @TempDir static Path classDir;

  private Sandbox sandbox;
  private ControlPlaneStandIns controlPlane;
  private SshConnector ssh;
  private ApiServerActivitiesImpl apiServers;
  private List<String> members;

  @BeforeAll
  void start() throws Exception {
    sandbox =
        Sandbox.create(
            new SandboxSpec(classDir.resolve("sb"), "sandbox", 3, "3.4.23"), EtcdReleases.store());
    controlPlane = ControlPlaneStandIns.attach(sandbox);
    ssh = new SshConnector();
    apiServers =
        new ApiServerActivitiesImpl(
            new ClusterTargets(new InventorySource(sandbox.inventoryFile()), ssh));
    members = sandbox.cluster().members().stream().map(MemberSpec::clientUrl).toList();
  }

  @AfterAll
  void stop() {
    controlPlane.close();
    ssh.close();
    sandbox.close();
  }

  @Test
  void rewritesOnlyTheEtcdServersLineKeepsThePreviousManifestHiddenAndIsIdempotent()
      throws Exception {
    Path manifest = controlPlane.manifest("cp-m1");
    String before = Files.readString(manifest);
    apiServers.awaitHealthy(new AwaitApiServerRequest("sandbox", "cp-m1", 10));

    List<String> twoMembers = members.subList(0, 2);
    assertThat(apiServers.setEtcdServers(new SetEtcdServersRequest("sandbox", "cp-m1", twoMembers)))
        .isTrue();

    String after = Files.readString(manifest);
    assertThat(after.lines().toList()).hasSameSizeAs(before.lines().toList());
    List<String> changed = after.lines().filter(l -> !before.lines().toList().contains(l)).toList();
    assertThat(changed).containsExactly("    - --etcd-servers=" + String.join(",", twoMembers));
    assertThat(after).contains("# written by kubeadm");
    Path previous = manifest.resolveSibling(".kube-apiserver.yaml.etcd-runbooks.previous");
    assertThat(previous).hasContent(before);
    apiServers.awaitHealthy(new AwaitApiServerRequest("sandbox", "cp-m1", 10));

    long modified = Files.getLastModifiedTime(manifest).toMillis();
    assertThat(apiServers.setEtcdServers(new SetEtcdServersRequest("sandbox", "cp-m1", twoMembers)))
        .isFalse();
    assertThat(Files.getLastModifiedTime(manifest).toMillis()).isEqualTo(modified);
    assertThat(Files.readString(manifest)).isEqualTo(after);
  }

  @Test
  void anApiServerPointedAtANonMemberIsReportedUnhealthyAndItsManifestCanBePutBack()
      throws Exception {
    Path manifest = controlPlane.manifest("cp-m2");
    String before = Files.readString(manifest);
    apiServers.setEtcdServers(
        new SetEtcdServersRequest(
            "sandbox", "cp-m2", List.of(members.get(0), "http://127.0.0.1:1")));

    assertThatThrownBy(
            () -> apiServers.awaitHealthy(new AwaitApiServerRequest("sandbox", "cp-m2", 2)))
        .isInstanceOf(ApplicationFailure.class)
        .satisfies(
            e -> assertThat(((ApplicationFailure) e).getType()).isEqualTo("ApiServerUnhealthy"))
        .hasMessageContaining("kube-apiserver on cp-m2")
        .hasMessageContaining("http://127.0.0.1:1 is not healthy");

    apiServers.restoreManifest(new ControlPlaneRef("sandbox", "cp-m2"));
    assertThat(manifest).hasContent(before);
    apiServers.awaitHealthy(new AwaitApiServerRequest("sandbox", "cp-m2", 10));
    apiServers.restoreManifest(new ControlPlaneRef("sandbox", "cp-m2"));
    assertThat(manifest).hasContent(before);
  }

  @Test
  void aManifestWithoutTheFlagIsRefusedAndLeftAlone() throws Exception {
    Path manifest = controlPlane.manifest("cp-m3");
    String odd = Files.readString(manifest).replaceAll("(?m)^.*--etcd-servers=.*\\n", "");
    Files.writeString(manifest, odd);

    assertThatThrownBy(
            () -> apiServers.setEtcdServers(new SetEtcdServersRequest("sandbox", "cp-m3", members)))
        .isInstanceOf(ApplicationFailure.class)
        .hasMessageContaining("no '- --etcd-servers=...' command line")
        .satisfies(e -> assertThat(((ApplicationFailure) e).isNonRetryable()).isTrue());
    assertThat(manifest).hasContent(odd);
    assertThatThrownBy(
            () ->
                apiServers.setEtcdServers(new SetEtcdServersRequest("sandbox", "cp-nope", members)))
        .hasMessageContaining("no control-plane host 'cp-nope'");
  }
}
