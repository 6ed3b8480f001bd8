package io.etcdrunbooks.activities.host;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.activities.ssh.SshTarget;
import io.etcdrunbooks.inventory.MemberSpec;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The pattern pgrep finds a static pod's etcd with (POSIX ERE; this subset reads the same as a Java
 * regex): the member's name and its data dir, so that another etcd of the same member name on the
 * machine (another cluster's sandbox, a leftover) is not taken for it.
 */
class StaticPodProcessPatternTest {

  private static final Pattern M2 =
      Pattern.compile(
          StaticPodServiceManager.processPattern(
              new MemberHost(
                  "kube",
                  new MemberSpec(
                      "m2",
                      "10.0.0.2",
                      22,
                      "https://10.0.0.2:2379",
                      "https://10.0.0.2:2380",
                      "/var/lib/etcd.d/m2",
                      null,
                      null),
                  new SshTarget("10.0.0.2", 22, "root", "/k", "/kh"))));

  @Test
  void theMembersNameAndDataDirInEitherOrderMatch() {
    assertThat(
            M2.matcher("etcd --name=m2 --data-dir=/var/lib/etcd.d/m2 --listen-client-urls=x")
                .find())
        .isTrue();
    assertThat(
            M2.matcher("/usr/local/bin/etcd --data-dir=/var/lib/etcd.d/m2 --debug --name=m2")
                .find())
        .isTrue();
  }

  @Test
  void anotherDataDirOrANameThatOnlyStartsAlikeDoNot() {
    assertThat(M2.matcher("etcd --name=m2 --data-dir=/tmp/other-sandbox/m2").find()).isFalse();
    assertThat(M2.matcher("etcd --name=m22 --data-dir=/var/lib/etcd.d/m2").find()).isFalse();
    assertThat(M2.matcher("etcd --name=m2 --data-dir=/var/lib/etcdXd/m2").find())
        .as("the dot of the data dir is a literal dot")
        .isFalse();
    assertThat(M2.matcher("sh -c etcd --name=m2 --data-dir=/var/lib/etcd.d/m2").find()).isFalse();
  }
}
