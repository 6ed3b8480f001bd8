package io.etcdrunbooks.activities.host;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.activities.ssh.SshTarget;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.ServiceSpec;
import org.junit.jupiter.api.Test;

/**
 * A member's name goes into the static-pod logCommand as one quoted shell word. The inventory's
 * names are checked, so a name with shell syntax cannot reach a host; the substitution is checked
 * on its own here.
 */
class StaticPodLogCommandTest {

  private static MemberHost member(String name) {
    MemberSpec spec =
        new MemberSpec(
            name,
            "10.0.0.1",
            22,
            "https://10.0.0.1:2379",
            "https://10.0.0.1:2380",
            "/var/lib/etcd",
            null,
            null);
    return new MemberHost("kube", spec, new SshTarget("10.0.0.1", 22, "root", "/k", "/kh"));
  }

  @Test
  void aMemberNameWithShellSyntaxBecomesOneQuotedWord() {
    String command =
        StaticPodServiceManager.logCommand(
            "crictl logs --tail {lines} $(crictl ps -a --name {member} -q)",
            member("m1; touch /tmp/owned $(id)"),
            20);

    assertThat(command)
        .isEqualTo("crictl logs --tail 20 $(crictl ps -a --name 'm1; touch /tmp/owned $(id)' -q)");
  }

  @Test
  void aPlainNameAndTheDefaultCommandStayAsTheyWere() {
    assertThat(
            StaticPodServiceManager.logCommand(
                "journalctl -u etcd-{member} -n {lines}", member("cp-1.a_b"), 0))
        .isEqualTo("journalctl -u etcd-cp-1.a_b -n 1");
    assertThat(StaticPodServiceManager.logCommand(ServiceSpec.DEFAULT_LOG_COMMAND, member("m1"), 5))
        .isEqualTo("crictl logs --tail 5 \"$(crictl ps -a --name etcd -q | head -n 1)\"");
  }
}
