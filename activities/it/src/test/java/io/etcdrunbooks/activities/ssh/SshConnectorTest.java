package io.etcdrunbooks.activities.ssh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.testkit.EtcdSandboxExtension;
import io.etcdrunbooks.testkit.RealEtcd;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.sshd.common.BaseBuilder;
import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.apache.sshd.common.config.keys.writer.openssh.OpenSSHKeyPairResourceWriter;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

@RealEtcd
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class SshConnectorTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  /** One member: its SSH "host" is the one the tests talk to. */
  @RegisterExtension
  static final EtcdSandboxExtension etcd =
      EtcdSandboxExtension.builder().cluster("ssh").members(1).version("3.4.23").build();

  private Path tmp;
  private SshConnector ssh;
  private SshTarget host;

  @BeforeAll
  void connect(@TempDir Path dir) {
    tmp = dir;
    ssh = new SshConnector(Duration.ofSeconds(10));
    host = SshTarget.of(etcd.cluster(), etcd.cluster().member("m1"));
  }

  @AfterAll
  void disconnect() {
    if (ssh != null) ssh.close();
  }

  @Test
  void execReturnsExitCodeAndBothStreams() {
    ExecResult result = ssh.exec(host, "echo hello; echo oops >&2; exit 3", TIMEOUT);

    assertThat(result).isEqualTo(new ExecResult(3, "hello\n", "oops\n"));
    assertThat(ssh.exec(host, "true", TIMEOUT).ok()).isTrue();
  }

  @Test
  void aHostOfferingMlKemGetsItInsteadOfMinasSlowerPostQuantumDefault() {
    // the sandbox's host is MINA's server with its default key exchanges: sntrup761 first, as
    // the client's own default would have picked
    assertThat(ssh.keyExchange(host)).isEqualTo("mlkem768x25519-sha256");
    assertThat(SshConnector.KEX_PREFERENCE)
        .as("every exchange MINA offers is still offered, for hosts without ML-KEM")
        .containsExactlyInAnyOrderElementsOf(BaseBuilder.DEFAULT_KEX_PREFERENCE);
  }

  @Test
  void quotedPathsSurviveTheRemoteShell() {
    Path odd = tmp.resolve("it's a $dir; `x`");
    ssh.exec(
            host,
            "mkdir -p " + Shell.quote(odd.toString()) + " && echo ok > " + Shell.quote(odd + "/f"),
            TIMEOUT)
        .orThrow(host, "mkdir");

    assertThat(odd.resolve("f")).hasContent("ok");
    assertThat(Shell.quote("plain/path-1.2")).isEqualTo("plain/path-1.2");
    assertThat(Shell.quote("")).isEqualTo("''");
  }

  @Test
  void uploadsAndReadsFilesOverSftp() throws Exception {
    Path local = Files.writeString(tmp.resolve("local.txt"), "line 1\nline 2\n");
    String remote = tmp.resolve("remote.txt").toString();

    ssh.upload(host, local, remote);
    assertThat(ssh.readFile(host, remote)).isEqualTo("line 1\nline 2\n");
    ssh.writeFile(host, remote, "replaced");
    assertThat(Path.of(remote)).hasContent("replaced");
  }

  @Test
  void aCommandOverItsTimeoutFails() {
    assertThatThrownBy(() -> ssh.exec(host, "sleep 5", Duration.ofMillis(300)))
        .isInstanceOf(SshCommandException.class)
        .hasMessageContaining("did not finish within");
  }

  @Test
  void aHostThatRefusesTheConnectionIsNamedWithItsAddressPortAndWhatToCheckWithoutALowLevelCause()
      throws Exception {
    int closed;
    try (java.net.ServerSocket socket =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort();
    }
    SshTarget down =
        new SshTarget(
            "localhost", closed, host.user(), host.privateKeyFile(), host.knownHostsFile());

    assertThatThrownBy(() -> ssh.exec(down, "true", TIMEOUT))
        .isInstanceOf(SshException.class)
        .hasMessageContaining("cannot connect to SSH on localhost (127.0.0.1) port " + closed)
        .hasMessageContaining("connection refused")
        .hasMessageContaining(
            "check that the host is up, that its SSH server listens on port " + closed)
        .hasNoCause();
    SshTarget unknown =
        new SshTarget(
            "no-such-host.invalid", 22, host.user(), host.privateKeyFile(), host.knownHostsFile());
    assertThatThrownBy(() -> ssh.exec(unknown, "true", TIMEOUT))
        .isInstanceOf(SshException.class)
        .hasMessageContaining(
            "cannot connect to SSH on no-such-host.invalid port 22: the host name no-such-host.invalid does not resolve");
  }

  @Test
  void aChangedHostKeyIsRefused() throws Exception {
    Path knownHosts = tmp.resolve("known_hosts_changed");
    Files.writeString(
        knownHosts,
        "[127.0.0.1]:"
            + host.port()
            + " "
            + PublicKeyEntry.toString(otherKey().getPublic())
            + "\n");
    SshTarget target =
        new SshTarget(
            host.host(), host.port(), host.user(), host.privateKeyFile(), knownHosts.toString());

    assertThatThrownBy(() -> ssh.exec(target, "true", TIMEOUT))
        .isInstanceOf(HostKeyRejectedException.class)
        .hasMessageContaining("127.0.0.1:" + host.port())
        .hasMessageContaining(knownHosts.toString())
        .hasMessageContaining("does not match");
  }

  /**
   * A session opened while known_hosts vouched for the host is not reused after the file changed:
   * the next command connects again and the host's key, no longer the one the file names, is
   * refused. The new line is as long as the old one and the file keeps its modification time, so
   * only its content tells the change.
   */
  @Test
  void aSessionOpenedBeforeKnownHostsChangedIsNotReusedAfterwards() throws Exception {
    Path knownHosts = tmp.resolve("known_hosts_edited");
    Files.copy(Path.of(host.knownHostsFile()), knownHosts);
    SshTarget target =
        new SshTarget(
            host.host(), host.port(), host.user(), host.privateKeyFile(), knownHosts.toString());
    assertThat(ssh.exec(target, "true", TIMEOUT).ok()).isTrue();

    var modified = Files.getLastModifiedTime(knownHosts);
    String before = Files.readString(knownHosts);
    String rekeyed =
        "[127.0.0.1]:" + host.port() + " " + PublicKeyEntry.toString(otherKey().getPublic()) + "\n";
    assertThat(rekeyed).hasSameSizeAs(before);
    Files.writeString(knownHosts, rekeyed);
    Files.setLastModifiedTime(knownHosts, modified);

    assertThatThrownBy(() -> ssh.exec(target, "true", TIMEOUT))
        .isInstanceOf(HostKeyRejectedException.class)
        .hasMessageContaining("does not match the known_hosts file " + knownHosts);

    Files.writeString(knownHosts, before);
    assertThat(ssh.exec(target, "true", TIMEOUT).ok())
        .as("the right key again: a new session")
        .isTrue();
  }

  @Test
  void aSessionOpenedForACheckIsKeptForTheCommandsThatFollowWhenNoneIsCached() throws Exception {
    Set<Integer> before = clientPortsTo(host.port());
    try (SshConnector fresh = new SshConnector(Duration.ofSeconds(10))) {
      assertThat(fresh.execOnNewSession(host, "true", TIMEOUT).ok()).isTrue();
      Set<Integer> afterCheck = new HashSet<>(clientPortsTo(host.port()));
      afterCheck.removeAll(before);
      assertThat(afterCheck).as("the check's connection, kept").hasSize(1);

      assertThat(fresh.exec(host, "true", TIMEOUT).ok()).isTrue();
      Set<Integer> afterExec = new HashSet<>(clientPortsTo(host.port()));
      afterExec.removeAll(before);
      assertThat(afterExec).as("the next command used the same connection").isEqualTo(afterCheck);

      assertThat(fresh.execOnNewSession(host, "true", TIMEOUT).ok()).isTrue();
      Set<Integer> afterSecondCheck = new HashSet<>();
      for (int i = 0; i < 40; i++) { // its close reaches the socket a moment later
        afterSecondCheck = new HashSet<>(clientPortsTo(host.port()));
        afterSecondCheck.removeAll(before);
        if (afterSecondCheck.equals(afterCheck)) break;
        Thread.sleep(50);
      }
      assertThat(afterSecondCheck)
          .as("a second check, with a session cached, closes its own")
          .isEqualTo(afterCheck);
    }
  }

  /** Local ports of this machine's established TCP connections to {@code port} (v4 or v6). */
  private static Set<Integer> clientPortsTo(int port) throws IOException {
    Set<Integer> ports = new HashSet<>();
    String remotePort = String.format(":%04X", port);
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      for (String line : Files.readAllLines(Path.of(table))) {
        String[] f = line.trim().split("\\s+");
        if (f.length > 3 && f[2].endsWith(remotePort) && f[3].equals("01"))
          ports.add(Integer.parseInt(f[1].substring(f[1].indexOf(':') + 1), 16));
      }
    }
    return ports;
  }

  @Test
  void aHostMissingFromKnownHostsIsRefused() throws Exception {
    Path knownHosts = tmp.resolve("known_hosts_other");
    Files.writeString(
        knownHosts, "[127.0.0.1]:1 " + PublicKeyEntry.toString(otherKey().getPublic()) + "\n");
    SshTarget target =
        new SshTarget(
            host.host(), host.port(), host.user(), host.privateKeyFile(), knownHosts.toString());
    SshTarget noFile =
        new SshTarget(
            host.host(),
            host.port(),
            host.user(),
            host.privateKeyFile(),
            tmp.resolve("absent").toString());

    assertThatThrownBy(() -> ssh.exec(target, "true", TIMEOUT))
        .isInstanceOf(HostKeyRejectedException.class)
        .hasMessageContaining("127.0.0.1:" + host.port())
        .hasMessageContaining("is not in the known_hosts file " + knownHosts);
    assertThatThrownBy(() -> ssh.exec(noFile, "true", TIMEOUT))
        .isInstanceOf(HostKeyRejectedException.class)
        .hasMessageContaining("is not in the known_hosts file " + tmp.resolve("absent"));
  }

  @Test
  void anUnknownClientKeyIsRefusedWithoutShowingTheKey() throws Exception {
    Path key =
        Files.createFile(
            tmp.resolve("other_key"),
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try (var out = Files.newOutputStream(key)) {
      OpenSSHKeyPairResourceWriter.INSTANCE.writePrivateKey(otherKey(), "other", null, out);
    }
    SshTarget target =
        new SshTarget(host.host(), host.port(), host.user(), key.toString(), host.knownHostsFile());

    assertThatThrownBy(() -> ssh.exec(target, "true", TIMEOUT))
        .isInstanceOf(SshException.class)
        .isNotInstanceOf(HostKeyRejectedException.class)
        .hasMessageContaining("cannot log in to " + host.user() + "@127.0.0.1:" + host.port())
        .hasMessageNotContaining("PRIVATE KEY");
  }

  @Test
  void aClientKeyFileOpenToItsGroupOrOthersIsRefusedBeforeLoggingIn() throws Exception {
    Path key = tmp.resolve("copied_key");
    Files.copy(Path.of(host.privateKeyFile()), key);
    SshTarget target =
        new SshTarget(host.host(), host.port(), host.user(), key.toString(), host.knownHostsFile());
    for (String[] open :
        new String[][] {
          {"rw-r-----", "0640", "its group may read it"},
          {"rw----r--", "0604", "others may read it"}
        }) {
      Files.setPosixFilePermissions(key, PosixFilePermissions.fromString(open[0]));
      assertThatThrownBy(() -> ssh.exec(target, "true", TIMEOUT))
          .as(open[0])
          .isInstanceOf(SshException.class)
          .hasMessage(
              "the SSH private key file "
                  + key
                  + " has mode "
                  + open[1]
                  + ": "
                  + open[2]
                  + "; a secret file must be for its owner only (0600 or 0400): chmod 600 "
                  + key);
    }
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
    assertThat(ssh.exec(target, "true", TIMEOUT).ok()).isTrue();
  }

  private static java.security.KeyPair otherKey() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(256);
    return generator.generateKeyPair();
  }
}
