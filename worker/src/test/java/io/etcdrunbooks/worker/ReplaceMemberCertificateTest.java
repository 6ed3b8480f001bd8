package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberRequest;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberResult;
import io.temporal.client.WorkflowFailedException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A TLS cluster's replacement member serves the certificate its peers' settings name, from its own
 * host: the preflight reads it there and refuses, before anything is touched, when it does not
 * cover the new member's addresses (issue 13).
 */
@RealEtcd
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ReplaceMemberCertificateTest {

  @TempDir Path dir;

  @Test
  void aReplacementAtAnAddressItsCertificateDoesNotCoverIsRefusedAndOneItCoversPasses()
      throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.startWithTls(dir, "3.5.30")) {
      runbooks.destroy("m2");
      MemberPlacement host4 = runbooks.sandbox.addHost("host-4", "m4");
      MemberPlacement elsewhere =
          placement(
              host4,
              host4.peerUrl().replace("127.0.0.1", "127.0.0.2"),
              host4.clientUrl().replace("127.0.0.1", "127.0.0.2"));

      assertThatThrownBy(() -> runbooks.replaceStub("m2").replace(request(elsewhere, false)))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                assertThat(Failures.rootType(e)).isEqualTo(FailureType.ReplaceRefused.name());
                assertThat(Failures.rootMessage(e))
                    .contains(
                        "refused, nothing was touched",
                        "member m4: the certificate in",
                        "does not cover 127.0.0.2",
                        "[127.0.0.1, localhost]");
              });
      assertThat(runbooks.cluster().members()).extracting(m -> m.name()).doesNotContain("m4");

      ReplaceMemberResult dryRun =
          runbooks
              .replaceStub("m2")
              .replace(request(placement(host4, host4.peerUrl(), host4.clientUrl()), true));
      assertThat(dryRun.outcome()).isEqualTo(ReplaceMemberResult.DRY_RUN);
    }
  }

  private static MemberPlacement placement(MemberPlacement host, String peerUrl, String clientUrl) {
    return new MemberPlacement(
        "m4",
        host.host(),
        host.sshPort(),
        peerUrl,
        clientUrl,
        host.dataDir(),
        host.installDir(),
        host.serviceDir());
  }

  private static ReplaceMemberRequest request(MemberPlacement placement, boolean dryRun) {
    return ReplaceMemberRequest.of(
        "sandbox",
        "m2",
        placement,
        RunbookOptions.defaults().withDryRun(dryRun).withMemberTimeoutSeconds(60),
        "test");
  }
}
