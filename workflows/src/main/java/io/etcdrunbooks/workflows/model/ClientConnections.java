package io.etcdrunbooks.workflows.model;

import java.util.List;

/**
 * Who is connected to a member's client port(s) right now, as its host's established TCP
 * connections show it: etcd itself names no client in its metrics or /debug.
 *
 * @param listeners the client URLs the member listens on (its --listen-client-urls)
 * @param plainHttp those of them that serve plain http
 * @param clients the connected addresses, one per address and port, with what they are known as
 * @param unreadable why the connections could not be read (no {@code ss} on the host, etcd not
 *     running, the host not answering); null when they were
 */
public record ClientConnections(
    String member,
    List<String> listeners,
    List<String> plainHttp,
    List<Client> clients,
    String unreadable) {

  public ClientConnections {
    listeners = listeners == null ? List.of() : List.copyOf(listeners);
    plainHttp = plainHttp == null ? List.of() : List.copyOf(plainHttp);
    clients = clients == null ? List.of() : List.copyOf(clients);
  }

  public static ClientConnections unreadable(String member, List<String> listeners, String why) {
    return new ClientConnections(member, listeners, List.of(), List.of(), why);
  }

  /** The clients that are neither a member, a kube-apiserver of the inventory nor the worker. */
  public List<Client> unmanaged() {
    return clients.stream().filter(Client::unmanaged).toList();
  }

  /**
   * Connections from one address to one of the member's client ports.
   *
   * @param address the client's IP address
   * @param port the member's port it is connected to
   * @param connections how many connections it holds there
   * @param knownAs what the inventory knows the address as ("member m2", "kube-apiserver on cp1",
   *     "the worker", "member m1's own host"); null when it knows nothing of it
   * @param plainHttp whether the port serves plain http (a port serving http and https cannot say
   *     which the connection speaks)
   */
  public record Client(
      String address, int port, int connections, String knownAs, boolean plainHttp) {

    public boolean unmanaged() {
      return knownAs == null || knownAs.isBlank();
    }

    /** "127.0.0.9 -> :2379 (1 connection, plain http served there)", for plans. */
    public String describe() {
      return "%s -> :%d (%d connection%s%s)"
          .formatted(
              address,
              port,
              connections,
              connections == 1 ? "" : "s",
              plainHttp ? ", plain http served there" : "");
    }
  }
}
