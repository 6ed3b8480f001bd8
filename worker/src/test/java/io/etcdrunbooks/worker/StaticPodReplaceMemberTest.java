package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberRequest;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberResult;
import io.temporal.client.WorkflowFailedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * ReplaceMember on a kubeadm-like static-pod TLS sandbox: kubelet stand-ins run etcd from the
 * manifests the runbook writes. A new node whose certificates (in the paths the peers' manifest
 * names) do not cover its address, or that cannot pull the image, is refused before any member is
 * removed.
 */
@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class StaticPodReplaceMemberTest {

  @TempDir Path dir;

  @Test
  void aFailedNodesMemberIsReplacedOnANewNodeFromARunningPeersManifestAsALearner()
      throws Exception {
    try (SandboxRunbooks runbooks =
        SandboxRunbooks.startWithTls(
            dir, "3.4.23", ServiceSpec.STATIC_POD, java.util.function.UnaryOperator.identity())) {
      Map<String, ClusterProbe.StoredKey> keys;
      try (ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
        probe.putManyUnordered("/registry/configmaps/kube-system/cm-", 300);
        keys = probe.dump(0);
      }
      String peerManifest = Files.readString(runbooks.sandbox.manifestPath("m1"));
      runbooks.sandbox.stopKubelet("m2");
      runbooks.destroy("m2");
      MemberPlacement m4 = runbooks.sandbox.addHost("m4", "m4");

      // at an address the certificates its peers' manifest names do not cover: refused, m2 still in
      MemberPlacement elsewhere =
          new MemberPlacement(
              "m4",
              m4.host(),
              m4.sshPort(),
              m4.peerUrl().replace("127.0.0.1", "127.0.0.2"),
              m4.clientUrl().replace("127.0.0.1", "127.0.0.2"),
              m4.dataDir(),
              m4.installDir(),
              m4.serviceDir());
      assertThatThrownBy(
              () ->
                  runbooks
                      .replaceStub("m2")
                      .replace(
                          ReplaceMemberRequest.of(
                              "sandbox",
                              "m2",
                              elsewhere,
                              RunbookOptions.defaults().withMemberTimeoutSeconds(20),
                              "test")))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                assertThat(Failures.rootType(e)).isEqualTo(FailureType.ReplaceRefused.name());
                assertThat(Failures.rootMessage(e))
                    .contains("member m4: the certificate in", "does not cover 127.0.0.2");
              });
      assertThat(runbooks.cluster().members()).extracting(m -> m.name()).contains("m2");

      // the new node cannot pull the image: refused in the preflight, the failed member still in
      runbooks.sandbox.registry().cutOff(runbooks.sandbox.hostRoot("m4"));
      assertThatThrownBy(
              () ->
                  runbooks
                      .replaceStub("m2")
                      .replace(
                          ReplaceMemberRequest.of(
                              "sandbox",
                              "m2",
                              m4,
                              RunbookOptions.defaults().withMemberTimeoutSeconds(20),
                              "test")))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                assertThat(Failures.rootType(e)).isEqualTo(FailureType.ReplaceRefused.name());
                assertThat(Failures.rootMessage(e))
                    .contains(
                        "member 'm4'",
                        runbooks.sandbox.registry().image("3.4.23-0"),
                        "i/o timeout");
              });
      try (ClusterProbe probe = new ClusterProbe(runbooks.cluster())) {
        assertThat(probe.members())
            .extracting(io.etcd.jetcd.cluster.Member::getName)
            .containsExactlyInAnyOrder("m1", "m2", "m3");
      }
      runbooks.sandbox.registry().reconnect(runbooks.sandbox.hostRoot("m4"));

      ReplaceMemberResult result =
          runbooks
              .replaceStub("m2")
              .replace(
                  ReplaceMemberRequest.of(
                      "sandbox",
                      "m2",
                      m4,
                      RunbookOptions.defaults()
                          .withMemberTimeoutSeconds(90)
                          .withApiServerTimeoutSeconds(30),
                      "test"));

      assertThat(result.outcome()).isEqualTo(ReplaceMemberResult.REPLACED);
      assertThat(result.joinedAsLearner()).isTrue();
      ClusterAssertions.assertHealthyAndIntact(runbooks, List.of("m1", "m4", "m3"), "3.4.23", keys);
      String manifest = Files.readString(runbooks.sandbox.manifestPath("m4"));
      assertThat(manifest)
          .contains(
              "- --name=m4\n",
              "- --initial-cluster-state=existing\n",
              "--advertise-client-urls=" + m4.clientUrl(),
              "path: " + m4.dataDir(),
              "image: " + runbooks.sandbox.registry().image("3.4.23-0"))
          .doesNotContain(runbooks.sandbox.cluster().member("m1").clientUrl());
      assertThat(manifest.lines().count())
          .as("the peer's manifest, member by member")
          .isEqualTo(peerManifest.lines().count());
      assertThat(manifest)
          .contains("# etcd of sandbox member m1"); // comments are the peer's, kept as they were
    }
  }
}
