package io.etcdrunbooks.activities.host;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.activities.host.ClientConnectionsReader.Connection;
import io.etcdrunbooks.activities.host.ClientConnectionsReader.Listener;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What ss prints on a kubeadm node (IPv4, and IPv4 mapped into IPv6 on a dual-stack listener) and
 * which of it belongs to the member's listeners. EnableTlsTest reads it on real etcd.
 */
class ClientConnectionsReaderTest {

  @Test
  void ssLinesGiveTheLocalAddressAndPortAndThePeerInOneForm() {
    assertThat(Connection.parse("0      0      10.0.0.1:2379     10.0.4.17:51234"))
        .contains(new Connection("10.0.0.1", 2379, "10.0.4.17"));
    assertThat(Connection.parse("0 0 [::ffff:10.0.0.1]:2379 [::ffff:10.0.4.17]:51234"))
        .contains(new Connection("10.0.0.1", 2379, "10.0.4.17"));
    assertThat(Connection.parse("0 0 [fe80::1%eth0]:2379 [fe80::2%eth0]:40000"))
        .contains(new Connection("fe80::1", 2379, "fe80::2"));
    assertThat(Connection.parse("")).isEmpty();
  }

  @Test
  void aListenerTakesItsPortOnItsAddressOrAnyWhenItListensOnEvery() {
    List<Listener> kubeadm =
        Listener.parse("https://127.0.0.1:2379,https://10.0.0.1:2379,unixs://etcd:0");
    assertThat(kubeadm).extracting(Listener::host).containsExactly("127.0.0.1", "10.0.0.1");
    Connection onHostAddress = new Connection("10.0.0.1", 2379, "10.0.4.17");
    Connection onOtherMember = new Connection("10.0.0.2", 2379, "10.0.4.17");
    Connection onPeerPort = new Connection("10.0.0.1", 2380, "10.0.0.2");
    assertThat(kubeadm.get(1).accepts(onHostAddress)).isTrue();
    assertThat(kubeadm.get(1).accepts(onOtherMember)).isFalse();
    assertThat(kubeadm.get(1).accepts(onPeerPort)).isFalse();
    Listener every = Listener.parse("http://0.0.0.0:2379").get(0);
    assertThat(every.plainHttp()).isTrue();
    assertThat(every.accepts(onOtherMember)).isTrue();
  }

  @Test
  void theCommandAsksForEachClientPortOnceAndTellsAMissingSsApart() {
    assertThat(
            ClientConnectionsReader.command(
                Listener.parse("http://10.0.0.1:2379,https://10.0.0.1:2379,https://[::1]:4001")))
        .isEqualTo(
            "command -v ss >/dev/null 2>&1 || exit 127; ss -Htn state established"
                + " '( sport = :2379 or sport = :4001 )'");
  }
}
