package io.etcdrunbooks.api.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Slack's side on 127.0.0.1: its Web API's chat.postMessage under {@code api/} (answering with a
 * message ts, or not_in_channel for {@link #NOT_INVITED}) and chat.update, and response URLs
 * anywhere else. Every request is kept in order, with its path, Authorization header and JSON body.
 */
public final class FakeSlack implements AutoCloseable {

  /** A channel the bot was not invited to. */
  public static final String NOT_INVITED = "C0NOBOT";

  private static final ObjectMapper JSON = new ObjectMapper();

  /** A request Slack got, and the message ts it answered with ("" when none). */
  public record Posted(String path, String authorization, JsonNode body, String ts) {
    public String text() {
      return body.path("text").asText();
    }

    public boolean isChatMessage() {
      return path.equals("/api/chat.postMessage");
    }

    public boolean isChatUpdate() {
      return path.equals("/api/chat.update");
    }

    /** A reply in a thread, not a message in the channel. */
    public boolean inThread() {
      return body.hasNonNull("thread_ts");
    }

    /** Posted to a response URL, not to the Web API. */
    public boolean isResponse() {
      return !path.startsWith("/api/");
    }
  }

  private final BlockingQueue<Posted> posted = new LinkedBlockingQueue<>();
  private final AtomicInteger messages = new AtomicInteger();
  private final HttpServer server;

  private FakeSlack() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          JsonNode body = JSON.readTree(exchange.getRequestBody().readAllBytes());
          String path = exchange.getRequestURI().getPath();
          String channel = body.path("channel").asText();
          String ts = "";
          String answer = "ok";
          if (path.equals("/api/chat.update")) {
            ts = body.path("ts").asText();
            answer = "{\"ok\":true,\"channel\":\"%s\",\"ts\":\"%s\"}".formatted(channel, ts);
          } else if (path.equals("/api/chat.postMessage")) {
            if (channel.equals(NOT_INVITED)) {
              answer = "{\"ok\":false,\"error\":\"not_in_channel\"}";
            } else {
              ts = "1700000000.%06d".formatted(messages.incrementAndGet());
              answer = "{\"ok\":true,\"channel\":\"%s\",\"ts\":\"%s\"}".formatted(channel, ts);
            }
          }
          posted.add(
              new Posted(path, exchange.getRequestHeaders().getFirst("Authorization"), body, ts));
          byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(200, bytes.length);
          exchange.getResponseBody().write(bytes);
          exchange.close();
        });
    server.start();
  }

  public static FakeSlack start() throws IOException {
    return new FakeSlack();
  }

  /** {@code http://127.0.0.1:<port>/}: the response URL prefix; its {@code api/} is the Web API. */
  public String base() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/";
  }

  /** The next request, waited for up to 20 s. */
  public Posted next() throws InterruptedException {
    return next(any -> true);
  }

  /** The next request {@code wanted} accepts, others passed over; waited for up to 20 s. */
  public Posted next(Predicate<Posted> wanted) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (true) {
      Posted next = posted.poll(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
      assertThat(next).as("a request to Slack").isNotNull();
      if (wanted.test(next)) return next;
    }
  }

  /** A request {@code wanted} accepts within {@code seconds}, or null. */
  public Posted within(int seconds, Predicate<Posted> wanted) throws InterruptedException {
    long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (true) {
      Posted next = posted.poll(Math.max(0, until - System.nanoTime()), TimeUnit.NANOSECONDS);
      if (next == null || wanted.test(next)) return next;
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
