package io.etcdrunbooks.api.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * HTTP/1.1 requests with the request target sent byte for byte as given: Java's HTTP clients
 * normalise or refuse dot segments, doubled slashes and raw characters, which are exactly what an
 * attacker sends.
 */
public final class RawHttp {

  private final int port;

  public RawHttp(int port) {
    this.port = port;
  }

  public record Answer(int status, String body) {}

  public Answer send(String method, String target, String authorization, String body)
      throws IOException {
    byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    StringBuilder head =
        new StringBuilder(method)
            .append(' ')
            .append(target)
            .append(" HTTP/1.1\r\n")
            .append("Host: 127.0.0.1:")
            .append(port)
            .append("\r\nConnection: close\r\n");
    if (authorization != null) head.append("Authorization: ").append(authorization).append("\r\n");
    if (body != null)
      head.append("Content-Type: application/json\r\nContent-Length: ")
          .append(content.length)
          .append("\r\n");
    head.append("\r\n");
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
      out.write(content);
      out.flush();
      String response = readAll(socket.getInputStream());
      int status = Integer.parseInt(response.substring(9, 12));
      int bodyStart = response.indexOf("\r\n\r\n");
      return new Answer(status, bodyStart < 0 ? "" : response.substring(bodyStart + 4));
    }
  }

  private static String readAll(InputStream in) throws IOException {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    in.transferTo(all);
    return all.toString(StandardCharsets.UTF_8);
  }
}
