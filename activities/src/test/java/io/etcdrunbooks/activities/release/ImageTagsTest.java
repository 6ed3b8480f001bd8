package io.etcdrunbooks.activities.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.etcdrunbooks.activities.release.ImageTags.ImageName;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The registry API as registries answer it: a bearer challenge for anyone, then pages. */
class ImageTagsTest {

  private HttpServer registry;
  private final AtomicInteger tokens = new AtomicInteger();

  @BeforeEach
  void start() throws IOException {
    registry = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    registry.createContext(
        "/token",
        exchange -> {
          tokens.incrementAndGet();
          assertThat(exchange.getRequestURI().getQuery())
              .isEqualTo("service=reg&scope=repository:mirror/etcd:pull");
          answer(exchange, 200, "{\"token\":\"t0k\"}");
        });
    registry.createContext(
        "/v2/mirror/etcd/tags/list",
        exchange -> {
          if (!"Bearer t0k".equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
            exchange
                .getResponseHeaders()
                .set(
                    "WWW-Authenticate",
                    "Bearer realm=\"http://127.0.0.1:%d/token\",service=\"reg\",scope=\"repository:mirror/etcd:pull\""
                        .formatted(port()));
            answer(exchange, 401, "{\"errors\":[{\"code\":\"UNAUTHORIZED\"}]}");
          } else if (exchange.getRequestURI().getQuery() == null) {
            exchange
                .getResponseHeaders()
                .set("Link", "</v2/mirror/etcd/tags/list?n=2&last=3.5.16-0>; rel=\"next\"");
            answer(
                exchange, 200, "{\"name\":\"mirror/etcd\",\"tags\":[\"3.4.23-0\",\"3.5.16-0\"]}");
          } else {
            answer(exchange, 200, "{\"name\":\"mirror/etcd\",\"tags\":[\"3.5.30-0\"]}");
          }
        });
    registry.start();
  }

  @AfterEach
  void stop() {
    registry.stop(0);
  }

  @Test
  void readsEveryPageOfTagsWithTheAnonymousTokenTheRegistryHandsOut() {
    ImageName image = ImageName.parse("127.0.0.1:" + port() + "/mirror/etcd:{version}-0");

    assertThat(new ImageTags().tags(image)).containsExactly("3.4.23-0", "3.5.16-0", "3.5.30-0");
    assertThat(image.tagOf("3.5.16")).isEqualTo("3.5.16-0");
    assertThat(image.describe()).isEqualTo("127.0.0.1:" + port() + "/mirror/etcd");
  }

  @Test
  void aRepositoryTheRegistryDoesNotKnowIsNamedWithItsAnswer() {
    ImageName image = ImageName.parse("127.0.0.1:" + port() + "/other/etcd:{version}-0");

    assertThatThrownBy(() -> new ImageTags().tags(image))
        .hasMessageContaining("image repository 127.0.0.1:" + port() + "/other/etcd")
        .hasMessageContaining("HTTP 404");
  }

  @Test
  void kubeadmsRegistryIsAskedOverHttpsAndANameWithoutRegistryOrTagIsRefused() {
    assertThat(ImageName.parse("registry.k8s.io/etcd:{version}-0").tagsList())
        .hasToString("https://registry.k8s.io/v2/etcd/tags/list");
    assertThatThrownBy(() -> ImageName.parse("etcd:{version}-0"))
        .hasMessageContaining("service.imageRepository");
    assertThatThrownBy(() -> ImageName.parse("registry.k8s.io/etcd"))
        .hasMessageContaining("host/path:tag");
  }

  private int port() {
    return registry.getAddress().getPort();
  }

  private static void answer(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", "application/json");
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }
}
