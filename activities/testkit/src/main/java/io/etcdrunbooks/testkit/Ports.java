package io.etcdrunbooks.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A free port on 127.0.0.1, for servers the tests, the demo and the bench start: taken at random
 * below the kernel's ephemeral range, so that no outgoing connection of the many the tests open can
 * take it between this check and the server's bind (as a port the kernel hands out for bind(0)
 * could be), and never the same one twice in a JVM.
 */
public final class Ports {

  private static final int LOWEST = 10000;
  private static final Set<Integer> handedOut = ConcurrentHashMap.newKeySet();

  private Ports() {}

  public static int free() {
    int below = ephemeralLow();
    for (int attempt = 0; attempt < 200 && below > LOWEST + 1000; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(LOWEST, below);
      if (handedOut.contains(port)) continue;
      try (ServerSocket socket = new ServerSocket(port, 0, InetAddress.getLoopbackAddress())) {
        if (socket.getLocalPort() == port && handedOut.add(port)) return port;
      } catch (IOException taken) {
        // in use: another
      }
    }
    try (ServerSocket socket = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port on 127.0.0.1", e);
    }
  }

  /** The first port of Linux's ephemeral range; 32768 (its default) where it cannot be read. */
  private static int ephemeralLow() {
    try {
      String range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).strip();
      return Integer.parseInt(range.split("\\s+")[0]);
    } catch (IOException | RuntimeException e) {
      return 32768;
    }
  }
}
