package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.ControlPlaneStandIns;
import io.etcdrunbooks.testkit.KubernetesApiStandIn;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberRequest;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberResult;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberWorkflow;
import io.temporal.client.WorkflowFailedException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/** ReplaceMember on real sandbox clusters with kube-apiserver stand-ins on every member's host. */
@RealEtcd
@Execution(ExecutionMode.CONCURRENT)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ReplaceMemberTest {

  @TempDir Path dir;

  @Test
  void on3_4ADestroyedMemberIsReplacedOnANewHostAsALearnerAndEveryApiServerAndKubeadmConfigFollow()
      throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.4.23", Map.of());
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(runbooks.sandbox);
        KubernetesApiStandIn kubernetes =
            KubernetesApiStandIn.start(
                dir.resolve("kubernetes"), externalEtcd(runbooks.cluster().members()))) {
      // kubeadm's external etcd: ClusterConfiguration lists the members' client URLs
      kubernetes.attachTo(runbooks.sandbox, 0);
      Map<String, ClusterProbe.StoredKey> keys = writeKeys(runbooks, 300);
      runbooks.destroy("m2");
      MemberPlacement m4 = runbooks.sandbox.addHost("host-4", "m4");

      ReplaceMemberResult result =
          runbooks
              .replaceStub("m2")
              .replace(
                  ReplaceMemberRequest.of(
                      "sandbox",
                      "m2",
                      new MemberPlacement(
                          "m4",
                          m4.host(),
                          m4.sshPort(),
                          m4.peerUrl(),
                          m4.clientUrl(),
                          m4.dataDir(),
                          m4.installDir(),
                          m4.serviceDir()),
                      RunbookOptions.defaults()
                          .withMemberTimeoutSeconds(60)
                          .withApiServerTimeoutSeconds(30),
                      "test"));

      assertThat(result.outcome()).isEqualTo(ReplaceMemberResult.REPLACED);
      assertThat(result.joinedAsLearner()).isTrue();
      assertThat(result.members()).containsExactlyInAnyOrder("m1", "m3", "m4");
      assertThat(result.apiServersUpdated()).containsExactlyElementsOf(apiServers.hosts());
      ClusterAssertions.assertHealthyAndIntact(runbooks, List.of("m1", "m4", "m3"), "3.4.23", keys);
      List<String> clientUrls =
          runbooks.cluster().members().stream().map(MemberSpec::clientUrl).toList();
      for (String host : apiServers.hosts()) {
        assertThat(Files.readString(apiServers.manifest(host)))
            .contains("--etcd-servers=" + String.join(",", clientUrls))
            .contains("# written by kubeadm");
        assertThat(HttpProbe.status(apiServers.standIn(host).healthUrl()))
            .as("%s /readyz", host)
            .isEqualTo(200);
      }
      assertThat(Path.of(runbooks.sandbox.inventoryFile() + ".previous")).exists();
      // the next kubeadm join --control-plane or kubeadm upgrade reads the new set
      JsonNode clusterConfiguration =
          new ObjectMapper(new YAMLFactory()).readTree(kubernetes.clusterConfiguration());
      assertThat(clusterConfiguration.at("/etcd/external/endpoints"))
          .extracting(JsonNode::asText)
          .containsExactlyElementsOf(clientUrls);
      assertThat(clusterConfiguration.at("/etcd/external/caFile").asText())
          .isEqualTo("/etc/kubernetes/pki/etcd/ca.crt");
      assertThat(result.notes()).anyMatch(n -> n.contains("etcd.external.endpoints"));

      Path out = Path.of("target", "recorded-replace-member-history.json");
      Files.createDirectories(out.getParent());
      Files.writeString(
          out,
          runbooks.client().fetchHistory(ReplaceMemberWorkflow.workflowId("sandbox")).toJson(true));
    }
  }

  @Test
  void on3_3ADestroyedMemberIsReplacedOnItsOwnHostAsAVotingMemberWithANewName() throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.3.25", Map.of());
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(runbooks.sandbox)) {
      Map<String, ClusterProbe.StoredKey> keys = writeKeys(runbooks, 200);
      String oldDataDir = runbooks.cluster().member("m3").dataDir();
      runbooks.sandbox.kill(
          "m3"); // its data dir stays: the runbook keeps it aside, never deletes it

      ReplaceMemberResult result =
          runbooks
              .replaceStub("m3")
              .replace(ReplaceMemberRequest.onSameHost("sandbox", "m3", false, "test"));

      assertThat(result.joinedAsLearner()).isFalse();
      assertThat(result.newMember().name()).isEqualTo("m3-r1");
      assertThat(result.newMember().peerUrl())
          .isEqualTo(runbooks.sandbox.cluster().member("m3").peerUrl());
      ClusterAssertions.assertHealthyAndIntact(
          runbooks, List.of("m1", "m2", "m3-r1"), "3.3.25", keys);
      try (var siblings = Files.list(Path.of(oldDataDir).getParent())) {
        assertThat(siblings.map(p -> p.getFileName().toString()))
            .anyMatch(n -> n.startsWith("etcd.replaced-"));
      }
      for (String host : apiServers.hosts()) {
        assertThat(HttpProbe.status(apiServers.standIn(host).healthUrl()))
            .as("%s /readyz", host)
            .isEqualTo(200);
      }
    }
  }

  @Test
  void withTwoOfThreeMembersDownItRefusesNamingTheRecoverQuorumRunbookAndTouchesNothing()
      throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.5.16", Map.of())) {
      runbooks.sandbox.kill("m2");
      runbooks.sandbox.kill("m3");
      String inventoryBefore = Files.readString(runbooks.sandbox.inventoryFile());
      long m1Pid = runbooks.sandbox.pidOf("m1");

      assertThatThrownBy(
              () ->
                  runbooks
                      .replaceStub("m2")
                      .replace(ReplaceMemberRequest.onSameHost("sandbox", "m2", false, "test")))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e ->
                  assertThat(io.etcdrunbooks.workflows.common.Failures.rootMessage(e))
                      .contains("refused, nothing was touched")
                      .contains("quorum")
                      .contains("RecoverQuorum runbook"));

      assertThat(Files.readString(runbooks.sandbox.inventoryFile())).isEqualTo(inventoryBefore);
      assertThat(runbooks.sandbox.pidOf("m1")).isEqualTo(m1Pid);
      assertThat(runbooks.sandbox.pidOf("m2")).isNegative();
      assertThat(Path.of(runbooks.cluster().member("m2").dataDir()).resolve("member")).exists();
    }
  }

  /**
   * The preflight logs in to every host the replacement needs, checking its key: not the failed
   * member's (the machine may be gone, or re-imaged with a new key), but every other member's, and
   * the new member's.
   */
  @Test
  void theFailedMembersHostIsNotRequiredButAnotherMembersHostWithAnUnknownKeyIsRefused()
      throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.5.16", Map.of())) {
      runbooks.destroy("m2");
      runbooks.distrustHostOf("m2");
      MemberPlacement m4 = runbooks.sandbox.addHost("host-4", "m4");
      ReplaceMemberRequest dryRun =
          ReplaceMemberRequest.of(
              "sandbox",
              "m2",
              m4,
              RunbookOptions.defaults()
                  .asDryRun()
                  .withMemberTimeoutSeconds(30)
                  .withApiServerTimeoutSeconds(30),
              "test");

      assertThat(runbooks.replaceStub("m2").replace(dryRun).outcome())
          .isEqualTo(ReplaceMemberResult.DRY_RUN);

      String m3 = "127.0.0.1:" + runbooks.cluster().member("m3").sshPort();
      runbooks.distrustHostOf("m3");
      assertThatThrownBy(() -> runbooks.replaceStub("m2").replace(dryRun))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e ->
                  assertThat(io.etcdrunbooks.workflows.common.Failures.rootMessage(e))
                      .contains("replacement of m2 in cluster sandbox refused, nothing was touched")
                      .contains(
                          "member m3 ("
                              + m3
                              + "): host key of "
                              + m3
                              + " does not match the known_hosts file")
                      .doesNotContain("member m2 ("));
    }
  }

  @Test
  void aReplacementThatCannotStartIsRemovedAgainAndTheClusterIsAsItWas() throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.5.16", Map.of())) {
      Map<String, ClusterProbe.StoredKey> keys = writeKeys(runbooks, 100);
      runbooks.destroy("m2");
      MemberPlacement m4 = runbooks.sandbox.addHost("host-4", "m4");
      String inventoryBefore = Files.readString(runbooks.sandbox.inventoryFile());
      URI peer = URI.create(m4.peerUrl());
      try (ServerSocket taken =
          new ServerSocket(peer.getPort(), 1, InetAddress.getLoopbackAddress())) {
        assertThat(taken.isBound()).as("m4's peer port is held by another process").isTrue();
        assertThatThrownBy(
                () ->
                    runbooks
                        .replaceStub("m2")
                        .replace(
                            ReplaceMemberRequest.of(
                                "sandbox",
                                "m2",
                                m4,
                                RunbookOptions.defaults()
                                    .withMemberTimeoutSeconds(30)
                                    .withApiServerTimeoutSeconds(30),
                                "test")))
            .isInstanceOf(WorkflowFailedException.class)
            .satisfies(
                e ->
                    assertThat(io.etcdrunbooks.workflows.common.Failures.rootMessage(e))
                        .contains("m4")
                        .contains("could not join")
                        .contains("address already in use")
                        .contains("removed from the membership again"));
      }
      try (ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
        var members = probe.members();
        assertThat(members).extracting(m -> m.getName()).containsExactlyInAnyOrder("m1", "m3");
        assertThat(members).noneMatch(m -> m.isLearner());
        assertThat(probe.dump(0)).containsAllEntriesOf(keys);
      }
      assertThat(runbooks.sandbox.pidOf("host-4")).isNegative();
      assertThat(Files.readString(runbooks.sandbox.inventoryFile())).isEqualTo(inventoryBefore);
    }
  }

  @Test
  void anApiServerThatStaysUnhealthyAfterItsManifestChangeGetsItBackAndTheRunbookStops()
      throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.5.30", Map.of());
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(runbooks.sandbox)) {
      runbooks.destroy("m3");
      MemberPlacement m4 = runbooks.sandbox.addHost("host-4", "m4");
      String broken = apiServers.hosts().get(1);
      String manifestBefore = Files.readString(apiServers.manifest(broken));
      apiServers.standIn(broken).failAfterManifestChange();

      assertThatThrownBy(
              () ->
                  runbooks
                      .replaceStub("m3")
                      .replace(
                          ReplaceMemberRequest.of(
                              "sandbox",
                              "m3",
                              m4,
                              RunbookOptions.defaults()
                                  .withMemberTimeoutSeconds(60)
                                  .withApiServerTimeoutSeconds(5),
                              "test")))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e ->
                  assertThat(io.etcdrunbooks.workflows.common.Failures.rootMessage(e))
                      .contains("kube-apiserver on " + broken + " did not become healthy")
                      .contains("previous manifest was put back")
                      .contains("not yet: [" + apiServers.hosts().get(2) + "]"));

      assertThat(Files.readString(apiServers.manifest(broken))).isEqualTo(manifestBefore);
      assertThat(Files.readString(apiServers.manifest(apiServers.hosts().get(0))))
          .contains(m4.clientUrl());
      assertThat(Files.readString(apiServers.manifest(apiServers.hosts().get(2))))
          .doesNotContain(m4.clientUrl());
      assertThat(runbooks.cluster().members())
          .extracting(MemberSpec::name)
          .containsExactly("m1", "m2", "m4");
    }
  }

  private static Map<String, ClusterProbe.StoredKey> writeKeys(SandboxRunbooks runbooks, int count)
      throws Exception {
    try (ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
      probe.putMany("/registry/secrets/default/s-", count);
      probe.put("/registry/configmaps/overwritten", "first");
      probe.put("/registry/configmaps/overwritten", "second");
      return probe.dump(0);
    }
  }

  /** kubeadm's ClusterConfiguration for these members as an external etcd. */
  static String externalEtcd(List<MemberSpec> members) {
    return """
        apiVersion: kubeadm.k8s.io/v1beta3
        certificatesDir: /etc/kubernetes/pki
        clusterName: sandbox
        etcd:
          external:
            caFile: /etc/kubernetes/pki/etcd/ca.crt
            certFile: /etc/kubernetes/pki/apiserver-etcd-client.crt
            endpoints:
        %s    keyFile: /etc/kubernetes/pki/apiserver-etcd-client.key
        imageRepository: registry.k8s.io
        kind: ClusterConfiguration
        kubernetesVersion: v1.30.8
        """
        .formatted(
            members.stream()
                .map(m -> "    - " + m.clientUrl() + "\n")
                .collect(java.util.stream.Collectors.joining()));
  }
}
