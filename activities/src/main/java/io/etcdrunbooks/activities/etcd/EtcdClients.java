package io.etcdrunbooks.activities.etcd;

import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;

/**
 * jetcd clients for one cluster of the inventory: one over every member's client URL, and one per
 * member for calls that must reach that member (move-leader goes to the current leader, a snapshot
 * to a chosen member). Clients are made on first use and closed by {@link #close()}. Every call is
 * bounded with {@link #await}: jetcd has no per-call deadline, and a stopped (not dead) member
 * would otherwise hang it.
 */
public final class EtcdClients implements AutoCloseable {

  public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
  public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

  /**
   * Large enough for a page of Kubernetes objects; {@link KeyspaceReader} halves its page when a
   * reply is larger.
   */
  static final int MAX_INBOUND_MESSAGE_BYTES = 64 * 1024 * 1024;

  private final ClusterSpec spec;
  private final TlsMaterial tls;
  private final EtcdCredentials credentials;
  private Client all;
  private final Map<String, Client> byMember = new LinkedHashMap<>();

  public EtcdClients(ClusterSpec spec) {
    this.spec = spec;
    this.tls = spec.tls() == null ? null : TlsMaterial.load(spec.tls());
    this.credentials = spec.auth() == null ? null : EtcdCredentials.load(spec);
  }

  public ClusterSpec spec() {
    return spec;
  }

  /** A client over every member's client URL; it fails over to the next member when one is down. */
  public synchronized Client cluster() {
    if (all == null) all = build(oneScheme());
    return all;
  }

  /** A client that talks to this member only. */
  public synchronized Client member(String memberName) {
    MemberSpec member = spec.member(memberName);
    return byMember.computeIfAbsent(
        member.name(), n -> build(List.of(URI.create(member.clientUrl()))));
  }

  /**
   * The gRPC target of a member for jetcd calls addressed to one member ({@code statusMember},
   * {@code hashKV}): host:port of its client URL.
   */
  public static String target(MemberSpec member) {
    URI uri = URI.create(member.clientUrl());
    int port = uri.getPort() != -1 ? uri.getPort() : "https".equals(uri.getScheme()) ? 443 : 80;
    return uri.getHost() + ":" + port;
  }

  /** Waits at most {@link #REQUEST_TIMEOUT} for the call. */
  public static <T> T await(CompletableFuture<T> call, String what) {
    return await(call, what, REQUEST_TIMEOUT);
  }

  /**
   * Waits for a jetcd call at most {@code timeout}; fails with {@link EtcdCallException} naming the
   * call and the cause (gRPC status or timeout), and cancels the call on timeout.
   */
  public static <T> T await(CompletableFuture<T> call, String what, Duration timeout) {
    try {
      return call.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      call.cancel(true);
      throw new EtcdCallException(what + ": no answer within " + timeout.toSeconds() + " s", e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new EtcdCallException(what + ": " + EtcdCallException.describe(cause), cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      call.cancel(true);
      throw new EtcdCallException(what + ": interrupted", e);
    }
  }

  /**
   * Whether etcd refuses a read without credentials: auth is on. Asked with a client that has none,
   * whatever the inventory gives, so the answer does not depend on it; empty when no member
   * answered.
   */
  public java.util.Optional<Boolean> authEnabled() {
    try (Client anonymous = builder(oneScheme()).build()) {
      await(
          anonymous
              .getKVClient()
              .get(
                  io.etcd.jetcd.ByteSequence.from(new byte[] {0}),
                  io.etcd.jetcd.options.GetOption.builder().withCountOnly(true).build()),
          "read without credentials from cluster '" + spec.name() + "'");
      return java.util.Optional.of(false);
    } catch (EtcdCallException e) {
      return e.isAuthRequired() ? java.util.Optional.of(true) : java.util.Optional.empty();
    }
  }

  private Client build(List<URI> endpoints) {
    ClientBuilder builder = builder(endpoints);
    if (credentials != null) credentials.applyTo(builder);
    return builder.build();
  }

  /**
   * Every member's client URL; while a cluster moves to TLS (some members https, the others still
   * http), the https ones when the inventory gives client TLS, else the http ones: one client
   * speaks one scheme, and jetcd's plaintext HTTP/2 does not reach a member serving both schemes on
   * one port (etcd 3.4, measured here).
   */
  private List<URI> oneScheme() {
    List<URI> all = spec.members().stream().map(m -> URI.create(m.clientUrl())).toList();
    List<URI> https = all.stream().filter(EtcdClients::isHttps).toList();
    if (https.isEmpty() || https.size() == all.size()) return all;
    return tls != null ? https : all.stream().filter(u -> !isHttps(u)).toList();
  }

  private static boolean isHttps(URI uri) {
    return "https".equals(uri.getScheme());
  }

  private ClientBuilder builder(List<URI> endpoints) {
    ClientBuilder builder =
        Client.builder()
            .endpoints(endpoints)
            .connectTimeout(CONNECT_TIMEOUT)
            // fail fast on a member that is down instead of queueing the call until it comes back
            .waitForReady(false)
            .retryMaxAttempts(1)
            .retryMaxDuration(REQUEST_TIMEOUT)
            .keepaliveTime(Duration.ofSeconds(10))
            .keepaliveTimeout(Duration.ofSeconds(3))
            // pings go on without calls, although etcd answers pings on an idle connection with
            // GOAWAY too_many_pings (the next call reconnects): they are also what gives up on a
            // member whose port accepts but never answers (etcd waiting for quorum before it
            // serves); without them its calls wait for their own deadlines (RecoverQuorumTest)
            .keepaliveWithoutCalls(true)
            .maxInboundMessageSize(MAX_INBOUND_MESSAGE_BYTES);
    if (tls != null && endpoints.stream().allMatch(EtcdClients::isHttps)) {
      try {
        builder.sslContext(tls::configure);
      } catch (SSLException e) {
        throw new IllegalArgumentException(
            "cannot set up client TLS for cluster '" + spec.name() + "': " + e.getMessage(), e);
      }
    }
    return builder;
  }

  @Override
  public synchronized void close() {
    if (all != null) all.close();
    byMember.values().forEach(Client::close);
    all = null;
    byMember.clear();
  }
}
