package io.etcdrunbooks.activities.ssh;

import java.net.ConnectException;
import java.net.InetAddress;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.nio.channels.UnresolvedAddressException;
import java.time.Duration;

/**
 * Why a connection to a host's SSH server failed, in words that name the host, its address and
 * port, and what to check.
 */
final class ConnectFailure {

  private ConnectFailure() {}

  static String describe(SshTarget target, Throwable e, Duration timeout) {
    String where = where(target);
    Throwable root = root(e);
    if (root instanceof UnknownHostException || root instanceof UnresolvedAddressException) {
      return "cannot connect to SSH on "
          + where
          + ": the host name "
          + target.host()
          + " does not resolve; check the"
          + " host in the inventory and the worker's DNS";
    }
    String checks =
        "; check that the host is up, that its SSH server listens on port "
            + target.port()
            + " and that no firewall between the worker and the host blocks that port";
    if (root instanceof ConnectException) {
      return "cannot connect to SSH on "
          + where
          + ": connection refused ("
          + rootMessage(e)
          + ")"
          + checks;
    }
    if (root instanceof NoRouteToHostException) {
      return "cannot connect to SSH on " + where + ": no route to host" + checks;
    }
    String message = rootMessage(e);
    if (message.toLowerCase(java.util.Locale.ROOT).contains("timeout")
        || message.toLowerCase(java.util.Locale.ROOT).contains("timed out")) {
      return "cannot connect to SSH on "
          + where
          + ": no answer within "
          + timeout.toSeconds()
          + " s"
          + checks;
    }
    return "cannot connect to SSH on " + where + ": " + message + checks;
  }

  /** "node-4 (10.0.0.4) port 22", or "10.0.0.4 port 22" when the host is given as an address. */
  static String where(SshTarget target) {
    String address = target.host();
    try {
      address = InetAddress.getByName(target.host()).getHostAddress();
    } catch (UnknownHostException | SecurityException e) {
      // named as given; the cause says it does not resolve
    }
    return (address.equals(target.host()) ? target.host() : target.host() + " (" + address + ")")
        + " port "
        + target.port();
  }

  /** The innermost cause's message, or its class name when it has none. */
  static String rootMessage(Throwable e) {
    Throwable root = root(e);
    return root.getMessage() == null || root.getMessage().isBlank()
        ? root.getClass().getSimpleName()
        : root.getMessage();
  }

  private static Throwable root(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) t = t.getCause();
    return t;
  }
}
