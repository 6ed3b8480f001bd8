package io.etcdrunbooks.worker;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A client the runbooks do not manage, as Prometheus scraping :2379 is: it keeps one plain http
 * connection to a member's client URL open from an address of its own (127.0.0.0/8 is all
 * loopback), asking {@code /version} on it every 100 ms and connecting again whenever the member
 * closes it (a restart).
 */
final class PlainHttpScraper implements AutoCloseable {

  private final String from;
  private final InetSocketAddress to;
  private final Thread thread;
  private volatile boolean closed;
  private volatile Socket socket;
  private final java.util.concurrent.atomic.AtomicInteger answers =
      new java.util.concurrent.atomic.AtomicInteger();

  private PlainHttpScraper(String from, URI member) {
    this.from = from;
    this.to = new InetSocketAddress(member.getHost(), member.getPort());
    this.thread = new Thread(this::scrape, "plain-http-scraper");
    thread.setDaemon(true);
  }

  /** Starts scraping the member's http client URL from the loopback address {@code from}. */
  static PlainHttpScraper start(String from, String clientUrl) {
    PlainHttpScraper scraper = new PlainHttpScraper(from, URI.create(clientUrl));
    scraper.thread.start();
    return scraper;
  }

  private void scrape() {
    while (!closed) {
      try (Socket s = new Socket()) {
        s.bind(new InetSocketAddress(from, 0));
        s.connect(to, 1000);
        s.setSoTimeout(2000);
        socket = s;
        InputStream in = new BufferedInputStream(s.getInputStream());
        OutputStream out = s.getOutputStream();
        while (!closed) {
          out.write(
              ("GET /version HTTP/1.1\r\nHost: " + to.getHostString() + "\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
          out.flush();
          readResponse(in);
          answers.incrementAndGet();
          Thread.sleep(100);
        }
      } catch (IOException e) {
        pause(); // refused, closed by a restart, or no http there any more: connect again
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** How many of its requests were answered over plain http so far. */
  int answers() {
    return answers.get();
  }

  private static void readResponse(InputStream in) throws IOException {
    int length = 0;
    String line;
    while (!(line = readLine(in)).isEmpty()) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring("content-length:".length()).strip());
      }
    }
    if (in.readNBytes(length).length < length) throw new IOException("closed mid-answer");
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) != '\n') {
      if (c < 0) throw new IOException("closed");
      if (c != '\r') line.append((char) c);
    }
    return line.toString();
  }

  private void pause() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      closed = true;
    }
  }

  @Override
  public void close() throws IOException {
    closed = true;
    Socket s = socket;
    if (s != null) s.close();
    thread.interrupt();
  }
}
