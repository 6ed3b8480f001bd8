package io.etcdrunbooks.testkit;

import io.etcdrunbooks.activities.ssh.Shell;
import java.io.IOException;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PublicKey;
import java.util.List;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.apache.sshd.common.file.nativefs.NativeFileSystemFactory;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.auth.pubkey.UserAuthPublicKeyFactory;
import org.apache.sshd.server.keyprovider.SimpleGeneratorHostKeyProvider;
import org.apache.sshd.server.shell.ProcessShellFactory;
import org.apache.sshd.sftp.server.SftpSubsystemFactory;

/**
 * One sandbox "host": an SSH server on 127.0.0.1 with its own persistent host key, accepting only
 * the sandbox's client key for the sandbox user, running exec requests with /bin/sh -c and serving
 * SFTP over the real file system.
 */
final class SandboxHost implements AutoCloseable {

  private final SshServer server;
  private final PublicKey hostKey;

  private SandboxHost(SshServer server, PublicKey hostKey) {
    this.server = server;
    this.hostKey = hostKey;
  }

  static SandboxHost start(Path hostKeyFile, String user, PublicKey clientKey) throws IOException {
    return start(hostKeyFile, user, clientKey, null);
  }

  /**
   * @param binDir a directory put first on the PATH of every command, for the host's stand-ins of
   *     node tools (crictl); null for none
   */
  static SandboxHost start(Path hostKeyFile, String user, PublicKey clientKey, Path binDir)
      throws IOException {
    SimpleGeneratorHostKeyProvider hostKeys = new SimpleGeneratorHostKeyProvider(hostKeyFile);
    hostKeys.setAlgorithm(KeyUtils.EC_ALGORITHM);
    hostKeys.setKeySize(256);
    KeyPair hostKeyPair = hostKeys.loadKeys(null).iterator().next();
    SshServer server = SshServer.setUpDefaultServer();
    server.setHost("127.0.0.1");
    server.setPort(0);
    server.setKeyPairProvider(hostKeys);
    server.setUserAuthFactories(List.of(UserAuthPublicKeyFactory.INSTANCE));
    server.setPasswordAuthenticator(null);
    server.setKeyboardInteractiveAuthenticator(null);
    server.setPublickeyAuthenticator(
        (name, key, session) -> user.equals(name) && KeyUtils.compareKeys(clientKey, key));
    // the exec request's command line is run by /bin/sh -c: PATH is set first, in that shell
    String path =
        binDir == null
            ? ""
            : "PATH=" + Shell.quote(binDir.toString()) + ":\"$PATH\"; export PATH; ";
    server.setCommandFactory(
        (channel, command) ->
            new ProcessShellFactory(path + command, "/bin/sh", "-c", path + command)
                .createShell(channel));
    server.setSubsystemFactories(List.of(new SftpSubsystemFactory()));
    server.setFileSystemFactory(NativeFileSystemFactory.INSTANCE);
    server.start();
    return new SandboxHost(server, hostKeyPair.getPublic());
  }

  int port() {
    return server.getPort();
  }

  /** The known_hosts line for this host. */
  String knownHostsLine() {
    return "[127.0.0.1]:" + port() + " " + PublicKeyEntry.toString(hostKey);
  }

  @Override
  public void close() throws IOException {
    server.stop(true);
  }
}
