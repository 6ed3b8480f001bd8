package io.etcdrunbooks.activities.ssh;

import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.secrets.SecretFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PublicKey;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongConsumer;
import java.util.stream.Stream;
import org.apache.sshd.client.ClientBuilder;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.auth.pubkey.UserAuthPublicKeyFactory;
import org.apache.sshd.client.channel.ChannelExec;
import org.apache.sshd.client.channel.ClientChannelEvent;
import org.apache.sshd.client.config.hosts.HostConfigEntryResolver;
import org.apache.sshd.client.config.hosts.KnownHostEntry;
import org.apache.sshd.client.keyverifier.KnownHostsServerKeyVerifier;
import org.apache.sshd.client.keyverifier.RejectAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.common.AttributeRepository;
import org.apache.sshd.common.AttributeRepository.AttributeKey;
import org.apache.sshd.common.BaseBuilder;
import org.apache.sshd.common.NamedFactory;
import org.apache.sshd.common.NamedResource;
import org.apache.sshd.common.config.keys.KeyUtils;
import org.apache.sshd.common.kex.BuiltinDHFactories;
import org.apache.sshd.common.kex.KexProposalOption;
import org.apache.sshd.common.keyprovider.KeyIdentityProvider;
import org.apache.sshd.common.util.security.SecurityUtils;
import org.apache.sshd.sftp.client.SftpClient;
import org.apache.sshd.sftp.client.SftpClientFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker's SSH client: runs /bin/sh commands on hosts and copies files to them over SFTP.
 *
 * <p>Host keys are always checked against the target's known_hosts file; an unknown or changed key
 * ends the connection with a {@link HostKeyRejectedException}. Sessions are kept per target and
 * closed by {@link #close()}; a session is not reused once the known_hosts file it was verified
 * against has changed (time, size or content): the next call connects again and checks the host's
 * key against the file as it is now.
 */
public final class SshConnector implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SshConnector.class);
  private static final AttributeKey<HostKeyCheck> HOST_KEY_CHECK = new AttributeKey<>();

  /**
   * The data of one SFTP write request. OpenSSH's sftp-server drops the connection on a message
   * over 256 KiB (SFTP_MAX_MSG_LENGTH), header included, so a 256 KiB write failed against real
   * hosts while MINA's own server took it; 64 KiB writes are pipelined by the client anyway.
   */
  static final int SFTP_BUFFER = 64 * 1024;

  private static final long PROGRESS_EVERY_NANOS = 1_000_000_000L;

  /**
   * MINA's key exchanges with mlkem768x25519-sha256 first. MINA prefers
   * sntrup761x25519-sha512@openssh.com, also post-quantum, whose BouncyCastle key generation costs
   * about 90 ms of CPU and 300 ms per login against 12 ms and 45 ms for ML-KEM (measured on a
   * 2-core machine, warm JIT). mlkem768x25519-sha256 is OpenSSH 10's default; hosts that do not
   * offer it (OpenSSH before 9.9) still get sntrup761 or curve25519 in MINA's order.
   */
  static final List<BuiltinDHFactories> KEX_PREFERENCE =
      Stream.concat(
              Stream.of(BuiltinDHFactories.mlkem768x25519),
              BaseBuilder.DEFAULT_KEX_PREFERENCE.stream()
                  .filter(kex -> kex != BuiltinDHFactories.mlkem768x25519))
          .toList();

  private final SshClient client;
  private final Duration connectTimeout;
  private final Map<SshTarget, OpenSession> sessions = new ConcurrentHashMap<>();
  private final Map<SshTarget, Object> connectLocks = new ConcurrentHashMap<>();
  private final Map<Path, StampedVerifier> verifiers = new ConcurrentHashMap<>();

  /** A logged-in session and the known_hosts file's stamp when its host key was checked. */
  private record OpenSession(ClientSession session, KnownHostsStamp knownHosts) {}

  /** A verifier loaded from the known_hosts file as the stamp describes it. */
  private record StampedVerifier(KnownHostsVerifier verifier, KnownHostsStamp stamp) {}

  public SshConnector() {
    this(Duration.ofSeconds(15));
  }

  public SshConnector(Duration connectTimeout) {
    this.connectTimeout = connectTimeout;
    client = SshClient.setUpDefaultClient();
    // Nothing from ~/.ssh: no config file rewriting hosts, no default identities, no password
    // prompts.
    client.setHostConfigEntryResolver(HostConfigEntryResolver.EMPTY);
    client.setKeyIdentityProvider(KeyIdentityProvider.EMPTY_KEYS_PROVIDER);
    client.setUserAuthFactories(List.of(UserAuthPublicKeyFactory.INSTANCE));
    client.setServerKeyVerifier(this::verifyServerKey);
    client.setKeyExchangeFactories(
        NamedFactory.setUpTransformedFactories(false, KEX_PREFERENCE, ClientBuilder.DH2KEX));
    client.setSessionFactory(new KnownKeysFirstSessions(client));
    client.start();
  }

  /**
   * Runs a /bin/sh command string (quote arguments with {@link Shell#quote}) and waits for it,
   * bounded.
   */
  public ExecResult exec(SshTarget target, String command, Duration timeout) {
    return exec(session(target), target, command, timeout);
  }

  /**
   * As {@link #exec}, over a session of its own opened now and closed after: the host's key is
   * checked against its known_hosts file as it is at this moment, whatever session is cached for
   * the target, and no cached session is disturbed. For checks before a runbook's first change.
   * When no usable session is cached for the target, this one is kept for the commands that follow
   * (it was checked against the same known_hosts), so the runbook's next step does not log in
   * again.
   */
  public ExecResult execOnNewSession(SshTarget target, String command, Duration timeout) {
    KnownHostsStamp knownHosts = knownHostsStamp(target);
    ClientSession session = connect(target, knownHosts);
    boolean kept = false;
    try {
      ExecResult result = exec(session, target, command, timeout);
      kept = keepUnlessOneIsCached(target, session, knownHosts);
      return result;
    } finally {
      if (!kept) closeQuietly(session);
    }
  }

  private boolean keepUnlessOneIsCached(
      SshTarget target, ClientSession session, KnownHostsStamp knownHosts) {
    synchronized (connectLocks.computeIfAbsent(target, t -> new Object())) {
      OpenSession cached = sessions.get(target);
      if (usable(cached, knownHostsStamp(target))) return false;
      if (!knownHosts.equals(knownHostsStamp(target))) return false;
      if (cached != null) closeQuietly(cached.session());
      sessions.put(target, new OpenSession(session, knownHosts));
      return true;
    }
  }

  private ExecResult exec(
      ClientSession session, SshTarget target, String command, Duration timeout) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    log.debug("{}: {}", target.address(), command);
    try (ChannelExec channel = session.createExecChannel(command)) {
      channel.setOut(out);
      channel.setErr(err);
      channel.open().verify(timeout);
      if (!awaitClosed(channel, target, timeout)) {
        throw new SshCommandException(
            "a command on "
                + target.address()
                + " did not finish within "
                + timeout.toSeconds()
                + " s: "
                + abbreviate(command));
      }
      Integer status = channel.getExitStatus();
      if (status == null) {
        throw new SshCommandException(
            "a command on "
                + target.address()
                + " ended without an exit status"
                + (channel.getExitSignal() == null
                    ? ""
                    : " (signal " + channel.getExitSignal() + ")")
                + ": "
                + abbreviate(command));
      }
      return new ExecResult(
          status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw failed("cannot run a command on " + target.address(), e);
    }
  }

  /**
   * Waits for the command to end, at most {@code timeout}, heartbeating the activity it runs for
   * every {@link Heartbeats#EVERY}: an etcdctl migrate or a restore of a large data dir outlasts an
   * activity's heartbeat timeout, and Temporal would otherwise start it again while it still runs.
   */
  private static boolean awaitClosed(ChannelExec channel, SshTarget target, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) return false;
      Set<ClientChannelEvent> events =
          channel.waitFor(
              EnumSet.of(ClientChannelEvent.CLOSED),
              // at least 1 ms: MINA waits without a bound for a timeout of 0
              Math.max(1, Math.min(left, Heartbeats.EVERY.toNanos()) / 1_000_000));
      if (events.contains(ClientChannelEvent.CLOSED)) return true;
      Heartbeats.beat("a command on " + target.address() + " still runs");
    }
  }

  /**
   * Copies a local file to remotePath over SFTP, replacing what is there. Permissions are the
   * caller's business.
   */
  public void upload(SshTarget target, Path local, String remotePath) {
    upload(target, local, remotePath, copied -> {});
  }

  /**
   * As {@link #upload(SshTarget, Path, String)}, telling progress the bytes copied so far after
   * every few MB.
   */
  public void upload(SshTarget target, Path local, String remotePath, LongConsumer progress) {
    try (SftpClient sftp = SftpClientFactory.instance().createSftpClient(session(target));
        InputStream in = Files.newInputStream(local);
        OutputStream out = sftp.write(remotePath, SFTP_BUFFER)) {
      copy(in, out, progress);
    } catch (IOException e) {
      throw failed("cannot upload " + local + " to " + target.address() + ":" + remotePath, e);
    }
  }

  /**
   * Copies remotePath to a local file over SFTP, replacing what is there, telling progress the
   * bytes copied so far after every few MB. Permissions are the caller's business.
   */
  public void download(SshTarget target, String remotePath, Path local, LongConsumer progress) {
    try (SftpClient sftp = SftpClientFactory.instance().createSftpClient(session(target));
        InputStream in = sftp.read(remotePath, SFTP_BUFFER);
        OutputStream out = Files.newOutputStream(local)) {
      copy(in, out, progress);
    } catch (IOException e) {
      throw failed("cannot download " + target.address() + ":" + remotePath + " to " + local, e);
    }
  }

  /**
   * Copies everything, telling progress the bytes copied so far at least every second while bytes
   * move: by time, not by size, so that a heartbeat comes in time over a slow link too.
   */
  private static void copy(InputStream in, OutputStream out, LongConsumer progress)
      throws IOException {
    byte[] buf = new byte[SFTP_BUFFER];
    long copied = 0;
    long reportedAt = System.nanoTime();
    for (int n; (n = in.read(buf)) > 0; ) {
      out.write(buf, 0, n);
      copied += n;
      if (System.nanoTime() - reportedAt >= PROGRESS_EVERY_NANOS) {
        progress.accept(copied);
        reportedAt = System.nanoTime();
      }
    }
  }

  /**
   * Streams a file from one host to another over SFTP through this process, replacing what is at
   * {@code toPath}; nothing of it is kept here. Telling progress the bytes copied so far after
   * every few MB. Permissions are the caller's business.
   */
  public void transfer(
      SshTarget from, String fromPath, SshTarget to, String toPath, LongConsumer progress) {
    try (SftpClient source = SftpClientFactory.instance().createSftpClient(session(from));
        SftpClient target = SftpClientFactory.instance().createSftpClient(session(to));
        InputStream in = source.read(fromPath, SFTP_BUFFER);
        OutputStream out = target.write(toPath, SFTP_BUFFER)) {
      copy(in, out, progress);
    } catch (IOException e) {
      throw failed(
          "cannot copy %s:%s to %s:%s".formatted(from.address(), fromPath, to.address(), toPath),
          e);
    }
  }

  /** The content of a remote text file, read over SFTP. */
  public String readFile(SshTarget target, String remotePath) {
    try (SftpClient sftp = SftpClientFactory.instance().createSftpClient(session(target));
        InputStream in = sftp.read(remotePath)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw failed("cannot read " + target.address() + ":" + remotePath, e);
    }
  }

  /** Writes a remote text file over SFTP, replacing what is there. */
  public void writeFile(SshTarget target, String remotePath, String content) {
    try (SftpClient sftp = SftpClientFactory.instance().createSftpClient(session(target));
        OutputStream out = sftp.write(remotePath)) {
      out.write(content.getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw failed("cannot write " + target.address() + ":" + remotePath, e);
    }
  }

  @Override
  public void close() {
    sessions.values().forEach(open -> closeQuietly(open.session()));
    sessions.clear();
    client.stop();
  }

  /** The key exchange this connector's session with the target agreed on (logging in first). */
  String keyExchange(SshTarget target) {
    return session(target).getNegotiatedKexParameter(KexProposalOption.ALGORITHMS);
  }

  private ClientSession session(SshTarget target) {
    KnownHostsStamp knownHosts = knownHostsStamp(target);
    OpenSession cached = sessions.get(target);
    if (usable(cached, knownHosts)) return cached.session();
    synchronized (connectLocks.computeIfAbsent(target, t -> new Object())) {
      cached = sessions.get(target);
      if (usable(cached, knownHosts)) return cached.session();
      if (cached != null) {
        if (!cached.knownHosts().equals(knownHosts)) {
          log.info(
              "{}: {} changed since the session was opened; connecting again to check the host key",
              target.address(),
              target.knownHostsFile());
        }
        sessions.remove(target);
        closeQuietly(cached.session());
      }
      ClientSession fresh = connect(target, knownHosts);
      sessions.put(target, new OpenSession(fresh, knownHosts));
      return fresh;
    }
  }

  private static boolean usable(OpenSession cached, KnownHostsStamp knownHostsNow) {
    return cached != null
        && cached.session().isOpen()
        && cached.session().isAuthenticated()
        && cached.knownHosts().equals(knownHostsNow);
  }

  private static KnownHostsStamp knownHostsStamp(SshTarget target) {
    if (target.knownHostsFile() == null || target.knownHostsFile().isBlank()) {
      throw new HostKeyRejectedException(
          "no known_hosts file is configured for "
              + target.address()
              + "; host keys are always verified, set ssh.knownHostsFile in the inventory");
    }
    return KnownHostsStamp.of(Path.of(target.knownHostsFile()).toAbsolutePath());
  }

  /**
   * @param knownHosts the known_hosts file's stamp, taken before connecting: the key is checked
   *     against that content or newer
   */
  private ClientSession connect(SshTarget target, KnownHostsStamp knownHosts) {
    HostKeyCheck check = new HostKeyCheck(target, knownHosts);
    ClientSession session;
    try {
      session =
          client
              .connect(
                  target.user(),
                  target.host(),
                  target.port(),
                  AttributeRepository.ofKeyValuePair(HOST_KEY_CHECK, check),
                  null)
              .verify(connectTimeout)
              .getSession();
    } catch (IOException | RuntimeException e) {
      if (check.problem != null) throw new HostKeyRejectedException(check.problem);
      log.debug("connecting to {}", target.address(), e);
      throw new SshException(ConnectFailure.describe(target, e, connectTimeout));
    }
    try {
      session.addPublicKeyIdentity(loadKeyPair(target));
      session.auth().verify(connectTimeout);
      return session;
    } catch (IOException | RuntimeException e) {
      closeQuietly(session);
      if (check.problem != null) throw new HostKeyRejectedException(check.problem);
      if (e instanceof SshException known) throw known;
      log.debug("logging in to {}", target.address(), e);
      throw new SshException(
          "cannot log in to "
              + target.user()
              + "@"
              + target.address()
              + " with the key file "
              + target.privateKeyFile()
              + ": "
              + ConnectFailure.rootMessage(e)
              + "; check that the key's public half is in that"
              + " user's authorized_keys on the host");
    }
  }

  /**
   * An SshException saying what failed where and why, without the low-level exception as its cause:
   * a runbook's failure shows the innermost cause's message, which must name the host rather than
   * say only "Connection reset".
   */
  private static SshException failed(String what, IOException e) {
    log.debug("{}", what, e);
    return new SshException(what + ": " + ConnectFailure.rootMessage(e));
  }

  private boolean verifyServerKey(ClientSession session, SocketAddress remote, PublicKey key) {
    HostKeyCheck check = checkOf(session);
    if (check == null) return false; // a session this connector did not open: trust nothing
    Path knownHosts = Path.of(check.target.knownHostsFile()).toAbsolutePath();
    // a verifier per content of the file: one loaded before the file changed never answers for the
    // new content
    StampedVerifier stamped =
        verifiers.compute(
            knownHosts,
            (file, current) ->
                current != null && current.stamp().equals(check.knownHosts)
                    ? current
                    : new StampedVerifier(new KnownHostsVerifier(file), check.knownHosts));
    return stamped.verifier().verifyServerKey(session, remote, key);
  }

  private static HostKeyCheck checkOf(ClientSession session) {
    AttributeRepository context = session.getConnectionContext();
    return context == null ? null : context.getAttribute(HOST_KEY_CHECK);
  }

  private static KeyPair loadKeyPair(SshTarget target) {
    Path file = Path.of(target.privateKeyFile());
    try {
      SecretFiles.check("the SSH private key file", file);
      try (InputStream in = Files.newInputStream(file)) {
        Iterable<KeyPair> pairs =
            SecurityUtils.loadKeyPairIdentities(
                null, NamedResource.ofName(file.toString()), in, null);
        if (pairs != null) {
          for (KeyPair pair : pairs) return pair;
        }
      }
      throw new SshException("the SSH private key file " + file + " holds no key");
    } catch (SecretFiles.Refused e) {
      throw new SshException(e.getMessage());
    } catch (IOException | GeneralSecurityException | RuntimeException e) {
      if (e instanceof SshException known) throw known;
      // The parser's message may quote the file; only the file name and the kind of problem are
      // reported.
      throw new SshException(
          "cannot read the SSH private key file "
              + file
              + " for "
              + target.address()
              + " ("
              + e.getClass().getSimpleName()
              + "); it must be an unencrypted OpenSSH or PEM private key readable by the worker");
    }
  }

  private static void closeQuietly(ClientSession session) {
    if (session == null) return;
    try {
      session.close();
    } catch (IOException | RuntimeException e) {
      log.debug("closing SSH session to {}", session.getConnectAddress(), e);
    }
  }

  private static String abbreviate(String command) {
    return command.length() <= 200 ? command : command.substring(0, 200) + "...";
  }

  /** Per connection attempt: which target it is for and, when its host key was refused, why. */
  private static final class HostKeyCheck {
    final SshTarget target;
    final KnownHostsStamp knownHosts;
    volatile String problem;

    HostKeyCheck(SshTarget target, KnownHostsStamp knownHosts) {
      this.target = target;
      this.knownHosts = knownHosts;
    }
  }

  /** Sessions that propose the host key algorithms of the keys known_hosts has first. */
  private static final class KnownKeysFirstSessions
      extends org.apache.sshd.client.session.SessionFactory {

    KnownKeysFirstSessions(SshClient client) {
      super(client);
    }

    @Override
    protected org.apache.sshd.client.session.ClientSessionImpl doCreateSession(
        org.apache.sshd.common.io.IoSession io) throws Exception {
      return new org.apache.sshd.client.session.ClientSessionImpl(getClient(), io) {
        @Override
        protected String resolveAvailableSignaturesProposal(
            org.apache.sshd.common.FactoryManager manager) {
          String proposal = super.resolveAvailableSignaturesProposal(manager);
          HostKeyCheck check = checkOf(this);
          if (check == null || check.target.knownHostsFile() == null) return proposal;
          return KnownKeysFirst.reorder(
              proposal,
              Path.of(check.target.knownHostsFile()),
              check.target.host(),
              check.target.port());
        }
      };
    }
  }

  /** known_hosts verification that refuses unknown and changed keys and says which one it was. */
  private static final class KnownHostsVerifier extends KnownHostsServerKeyVerifier {

    KnownHostsVerifier(Path file) {
      super(RejectAllServerKeyVerifier.INSTANCE, file);
    }

    @Override
    protected boolean acceptUnknownHostKey(
        ClientSession session, SocketAddress remote, PublicKey serverKey) {
      HostKeyCheck check = checkOf(session);
      if (check != null) {
        check.problem =
            "host key of "
                + check.target.address()
                + " ("
                + KeyUtils.getKeyType(serverKey)
                + " "
                + KeyUtils.getFingerPrint(serverKey)
                + ") is not in the known_hosts file "
                + getPath()
                + "; check the host's key fingerprint out of band and add a line for ["
                + check.target.host()
                + "]:"
                + check.target.port()
                + " to that file";
      }
      return false;
    }

    @Override
    public boolean acceptModifiedServerKey(
        ClientSession session,
        SocketAddress remote,
        KnownHostEntry entry,
        PublicKey expected,
        PublicKey actual) {
      HostKeyCheck check = checkOf(session);
      if (check != null) {
        check.problem =
            "host key of "
                + check.target.address()
                + " does not match the known_hosts file "
                + getPath()
                + ": expected "
                + KeyUtils.getFingerPrint(expected)
                + ", the host presented "
                + KeyUtils.getKeyType(actual)
                + " "
                + KeyUtils.getFingerPrint(actual)
                + "; if the host was re-keyed on purpose, replace its line in that file,"
                + " otherwise treat the host as compromised or impersonated";
      }
      return false;
    }
  }
}
