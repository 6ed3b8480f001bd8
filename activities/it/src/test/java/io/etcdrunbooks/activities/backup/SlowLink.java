package io.etcdrunbooks.activities.backup;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP relay on 127.0.0.1 to another local port that carries at most {@code bytesPerSecond} each
 * way: a slow link between the worker and its object store. Every thread ends when the relay is
 * closed.
 */
final class SlowLink implements AutoCloseable {

  private static final int CHUNK = 16 << 10;

  private final ServerSocket server;
  private final int targetPort;
  private final long bytesPerSecond;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();

  SlowLink(int targetPort, long bytesPerSecond) throws IOException {
    this.targetPort = targetPort;
    this.bytesPerSecond = bytesPerSecond;
    server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::accept, "slow-link-accept");
    accept.setDaemon(true);
    accept.start();
  }

  String endpoint() {
    return "http://127.0.0.1:" + server.getLocalPort();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        Socket target = new Socket();
        target.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5_000);
        sockets.add(client);
        sockets.add(target);
        relay(client, target);
        relay(target, client);
      } catch (IOException closed) {
        return;
      }
    }
  }

  private void relay(Socket from, Socket to) {
    Thread pump =
        new Thread(
            () -> {
              byte[] buffer = new byte[CHUNK];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                for (int n; (n = in.read(buffer)) >= 0; ) {
                  Thread.sleep(n * 1000L / bytesPerSecond);
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException | InterruptedException ended) {
                // the other side closed, or the relay did
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "slow-link-pump");
    pump.setDaemon(true);
    pump.start();
  }

  @Override
  public void close() throws IOException {
    server.close();
    sockets.forEach(SlowLink::closeQuietly);
  }

  private static void closeQuietly(Socket socket) {
    try {
      socket.close();
    } catch (IOException ignored) {
      // closing anyway
    }
  }
}
