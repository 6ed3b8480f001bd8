package io.etcdrunbooks.activities.host;

import io.etcdrunbooks.activities.ssh.ExecResult;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.ControlPlaneHost;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.workflows.model.ClientConnections;
import io.etcdrunbooks.workflows.model.MemberFlags;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Lists who is connected to a member's client ports: etcd names no client in its metrics or /debug,
 * so the member's host's established TCP connections ({@code ss}, read without sudo) are read and
 * each address is classified by what the inventory knows. A client on the member's own address
 * counts as its host's (kube-apiserver beside it on a kubeadm node, etcd's own gateway); one on
 * another address of a shared host (a sandbox's, a NAT's) is not told apart from an unmanaged one.
 */
final class ClientConnectionsReader {

  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  /** Exit status of the command when the host has no ss (iproute2). */
  private static final int NO_SS = 127;

  private final SshConnector ssh;
  private final ProcessFlagsReader flags;

  ClientConnectionsReader(SshConnector ssh, ProcessFlagsReader flags) {
    this.ssh = ssh;
    this.flags = flags;
  }

  ClientConnections read(ClusterSpec cluster, MemberHost host, ServiceManager service) {
    String member = host.member().name();
    MemberFlags running = flags.read(host, service);
    if (!running.running()) {
      return ClientConnections.unreadable(member, List.of(), "its etcd is not running");
    }
    List<Listener> listeners =
        Listener.parse(running.value("--listen-client-urls").orElse(host.member().clientUrl()));
    List<String> urls = listeners.stream().map(Listener::url).toList();
    List<String> plain = listeners.stream().filter(Listener::plainHttp).map(Listener::url).toList();
    if (listeners.isEmpty()) {
      return ClientConnections.unreadable(member, urls, "it listens on no TCP client URL");
    }
    ExecResult result = ssh.exec(host.target(), command(listeners), TIMEOUT);
    if (result.exitCode() == NO_SS) {
      return ClientConnections.unreadable(
          member, urls, "no ss on " + host.target().host() + " (Debian's iproute2 has it)");
    }
    if (!result.ok()) {
      return ClientConnections.unreadable(
          member,
          urls,
          "ss on %s exited %d: %s"
              .formatted(host.target().host(), result.exitCode(), result.stderr().strip()));
    }
    KnownAddresses known = KnownAddresses.of(cluster);
    Map<String, ClientConnections.Client> clients = new LinkedHashMap<>();
    for (String line : result.stdout().split("\n")) {
      Optional<Connection> connection = Connection.parse(line);
      if (connection.isEmpty()) continue;
      Connection c = connection.get();
      Optional<Listener> on = listeners.stream().filter(l -> l.accepts(c)).findFirst();
      if (on.isEmpty()) continue;
      boolean plainHttp =
          listeners.stream().anyMatch(l -> l.plainHttp() && l.port() == c.localPort());
      String knownAs =
          c.peer().equals(c.local())
              ? "member " + member + "'s own host"
              : known.of(c.peer()).orElse(null);
      clients.merge(
          c.peer() + ":" + c.localPort(),
          new ClientConnections.Client(c.peer(), c.localPort(), 1, knownAs, plainHttp),
          (a, b) ->
              new ClientConnections.Client(
                  a.address(), a.port(), a.connections() + 1, a.knownAs(), a.plainHttp()));
    }
    return new ClientConnections(member, urls, plain, List.copyOf(clients.values()), null);
  }

  /** Established connections whose local port is one of the listeners'; exit 127 without ss. */
  static String command(List<Listener> listeners) {
    String ports =
        listeners.stream()
            .map(l -> "sport = :" + l.port())
            .distinct()
            .collect(Collectors.joining(" or "));
    return "command -v ss >/dev/null 2>&1 || exit "
        + NO_SS
        + "; ss -Htn state established '( "
        + ports
        + " )'";
  }

  /** One of the member's client URLs, with the address and port it accepts connections on. */
  record Listener(String url, String host, int port, boolean plainHttp) {

    static List<Listener> parse(String urls) {
      List<Listener> listeners = new ArrayList<>();
      for (String url : urls.split(",")) {
        String u = url.strip();
        if (!u.startsWith("http://") && !u.startsWith("https://")) continue; // unix sockets
        URI uri = URI.create(u);
        if (uri.getPort() <= 0) continue;
        listeners.add(
            new Listener(u, address(uri.getHost()), uri.getPort(), u.startsWith("http://")));
      }
      return listeners;
    }

    /** Accepts the connection: its port, and its address unless it listens on every address. */
    boolean accepts(Connection c) {
      return c.localPort() == port
          && (host.equals("0.0.0.0")
              || host.equals("::")
              || !isAddress(host)
              || host.equals(c.local()));
    }

    /** An IP address rather than a name (localhost): a name is matched on its port alone. */
    private static boolean isAddress(String host) {
      return host.contains(":") || host.matches("[0-9.]+");
    }
  }

  /** One line of {@code ss -Htn state established}: Recv-Q, Send-Q, local and peer address. */
  record Connection(String local, int localPort, String peer) {

    static Optional<Connection> parse(String line) {
      String[] fields = line.strip().split("\\s+");
      if (fields.length < 4) return Optional.empty();
      try {
        String local = fields[2];
        String peer = fields[3];
        int localColon = local.lastIndexOf(':');
        int peerColon = peer.lastIndexOf(':');
        return Optional.of(
            new Connection(
                address(local.substring(0, localColon)),
                Integer.parseInt(local.substring(localColon + 1)),
                address(peer.substring(0, peerColon))));
      } catch (RuntimeException e) {
        return Optional.empty();
      }
    }
  }

  /**
   * An address as ss and the inventory may write it, in one form: brackets, a zone and the IPv4
   * mapping of IPv6 taken off.
   */
  static String address(String raw) {
    String a = raw.replaceAll("^\\[|]$", "").replaceAll("%.*$", "");
    if (a.startsWith("::ffff:") && a.indexOf('.') > 0) a = a.substring("::ffff:".length());
    if (a.equals("*")) return "0.0.0.0";
    return a;
  }

  /** Every address the inventory knows, with what it is: members, kube-apiservers, the worker. */
  record KnownAddresses(Map<String, String> names) {

    static KnownAddresses of(ClusterSpec cluster) {
      Map<String, String> names = new LinkedHashMap<>();
      for (MemberSpec m : cluster.members()) {
        String name = "member " + m.name();
        for (String host : List.of(m.host(), hostOf(m.clientUrl()), hostOf(m.peerUrl()))) {
          resolve(host).forEach(a -> names.putIfAbsent(a, name));
        }
      }
      for (ControlPlaneHost cp : cluster.controlPlane()) {
        String name = "kube-apiserver on " + cp.name();
        for (String host : List.of(cp.host(), hostOf(cp.healthUrl()))) {
          resolve(host).forEach(a -> names.putIfAbsent(a, name));
        }
      }
      workerAddresses().forEach(a -> names.putIfAbsent(a, "the worker"));
      return new KnownAddresses(names);
    }

    Optional<String> of(String address) {
      return Optional.ofNullable(names.get(address));
    }

    private static String hostOf(String url) {
      if (url == null || url.isBlank()) return null;
      try {
        return URI.create(url.strip()).getHost();
      } catch (IllegalArgumentException e) {
        return null;
      }
    }

    private static List<String> resolve(String host) {
      if (host == null || host.isBlank()) return List.of();
      try {
        List<String> addresses = new ArrayList<>();
        for (InetAddress a : InetAddress.getAllByName(address(host))) {
          addresses.add(address(a.getHostAddress()));
        }
        return addresses;
      } catch (UnknownHostException e) {
        return List.of(); // a name this worker cannot resolve: its clients count as unmanaged
      }
    }

    private static List<String> workerAddresses() {
      List<String> addresses = new ArrayList<>();
      try {
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
          for (InetAddress a : Collections.list(nic.getInetAddresses())) {
            addresses.add(address(a.getHostAddress()));
          }
        }
      } catch (SocketException e) {
        // none known: the worker's own connections are then listed as unmanaged, never hidden
      }
      return addresses;
    }
  }
}
