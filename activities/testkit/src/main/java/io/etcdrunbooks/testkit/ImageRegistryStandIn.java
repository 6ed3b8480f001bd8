package io.etcdrunbooks.testkit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.etcdrunbooks.activities.ssh.Shell;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Stands in for a static-pod cluster's image repository and each node's {@code crictl} (no
 * container runtime or registry can run here). The repository is an HTTP server on 127.0.0.1 that
 * answers the registry API's {@code GET /v2/etcd/tags/list} with the tags it holds; the images it
 * holds are also listed in a file, which each host's {@code crictl} script (on that host's PATH)
 * reads: {@code crictl pull IMAGE} succeeds for an image the repository holds and records it as
 * pulled on the host, else fails as the real crictl does; {@code crictl inspecti IMAGE} succeeds
 * for an image pulled there. A host can be cut off from the repository ({@link #cutOff}). Every
 * pull is appended to the sandbox's event log, beside the kubelet stand-ins' pod stops.
 */
public final class ImageRegistryStandIn implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpServer server;
  private final Path dir;
  private final Path images;
  private final Path events;
  private final Set<String> tags = new TreeSet<>();

  ImageRegistryStandIn(Path dir, Path events, List<String> initialTags) {
    try {
      this.dir = Files.createDirectories(dir);
      this.images = dir.resolve("images");
      this.events = events;
      this.server =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      server.createContext("/v2/", this::answer);
      server.start();
      synchronized (this) {
        tags.addAll(initialTags);
        writeImages();
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the image registry stand-in", e);
    }
  }

  /** The repository as the inventory's service.imageRepository names it: {@code 127.0.0.1:PORT}. */
  public String repository() {
    return "127.0.0.1:" + server.getAddress().getPort();
  }

  /** The etcd image of a tag in this repository. */
  public String image(String tag) {
    return repository() + "/etcd:" + tag;
  }

  /** The repository stops holding the tag, as a mirror that never got it. */
  public synchronized void remove(String tag) {
    tags.remove(tag);
    writeImages();
  }

  /** The repository holds the tag (again). */
  public synchronized void serve(String tag) {
    tags.add(tag);
    writeImages();
  }

  /** The host reaches the repository again. */
  public void reconnect(Path hostRoot) {
    try {
      Files.deleteIfExists(stateDir(hostRoot).resolve("unreachable"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The host's crictl and kubelet no longer reach the repository. */
  public void cutOff(Path hostRoot) {
    try {
      Files.createDirectories(stateDir(hostRoot));
      Files.writeString(stateDir(hostRoot).resolve("unreachable"), "");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Images pulled on the host, in order. */
  public static List<String> pulledOn(Path hostRoot) {
    Path file = stateDir(hostRoot).resolve("images");
    try {
      return Files.exists(file) ? Files.readAllLines(file) : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Records the image as pulled on the host, as an earlier pull (kubeadm init's) left it. */
  static void markPulled(Path hostRoot, String image) {
    try {
      Files.createDirectories(stateDir(hostRoot));
      Files.writeString(
          stateDir(hostRoot).resolve("images"),
          image + "\n",
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * kubelet's pull of an image the host lacks: true when the host has it or the repository gives
   * it.
   */
  synchronized boolean pullForKubelet(Path hostRoot, String member, String image) {
    if (pulledOn(hostRoot).contains(image)) return true;
    if (Files.exists(stateDir(hostRoot).resolve("unreachable"))) return false;
    if (!tags.contains(tagOf(image)) || !image.startsWith(repository() + "/etcd:")) return false;
    markPulled(hostRoot, image);
    Events.append(events, "kubelet-pull " + member + " " + image);
    return true;
  }

  /** Puts the crictl stand-in on the host's PATH directory ({@code binDir}). */
  void installCrictl(Path binDir, Path hostRoot, String member) {
    Path state = stateDir(hostRoot);
    String script =
        """
        #!/bin/sh
        # crictl stand-in of the etcd-runbooks sandbox (no container runtime here): pull and
        # inspecti of images in the sandbox's image registry stand-in
        state=%s
        registry=%s
        events=%s
        member=%s
        cmd=$1; shift
        [ "$1" = -q ] && shift
        image=$1
        case "$cmd" in
          inspecti)
            grep -qxF "$image" "$state/images" 2>/dev/null && exit 0
            echo "FATA[0000] no such image \\"$image\\" present" >&2; exit 1 ;;
          pull)
            if [ -e "$state/unreachable" ]; then
              echo "E1126 pulling image failed: rpc error: code = Unavailable desc = failed to pull and unpack image \\"$image\\": dial tcp: i/o timeout" >&2
              exit 1
            fi
            if ! grep -qxF "$image" "$registry" 2>/dev/null; then
              echo "E1126 pulling image failed: rpc error: code = NotFound desc = failed to pull and unpack image \\"$image\\": not found" >&2
              exit 1
            fi
            mkdir -p "$state"
            grep -qxF "$image" "$state/images" 2>/dev/null || echo "$image" >> "$state/images"
            echo "pull $member $image" >> "$events"
            echo "Image is up to date for sha256:0000"
            exit 0 ;;
          *) echo "crictl stand-in: '$cmd' is not stood in for" >&2; exit 2 ;;
        esac
        """
            .formatted(
                Shell.quote(state.toString()),
                Shell.quote(images.toString()),
                Shell.quote(events.toString()),
                Shell.quote(member));
    try {
      Files.createDirectories(binDir);
      Path crictl = binDir.resolve("crictl");
      Files.writeString(crictl, script);
      Files.setPosixFilePermissions(crictl, PosixFilePermissions.fromString("rwxr-xr-x"));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the crictl stand-in", e);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }

  private static Path stateDir(Path hostRoot) {
    return hostRoot.resolve("var/lib/crictl-stand-in");
  }

  private static String tagOf(String image) {
    return image.substring(image.lastIndexOf(':') + 1);
  }

  private void writeImages() {
    List<String> lines = new ArrayList<>();
    tags.forEach(t -> lines.add(image(t)));
    try {
      Path tmp = dir.resolve("images.tmp");
      Files.write(tmp, lines);
      Files.move(tmp, images, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void answer(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      byte[] body;
      int status;
      if ("GET".equals(exchange.getRequestMethod()) && path.equals("/v2/etcd/tags/list")) {
        List<String> served;
        synchronized (this) {
          served = List.copyOf(tags);
        }
        body = JSON.writeValueAsBytes(Map.of("name", "etcd", "tags", served));
        status = 200;
      } else {
        body =
            "{\"errors\":[{\"code\":\"NAME_UNKNOWN\",\"message\":\"repository name not known to registry\"}]}"
                .getBytes(StandardCharsets.UTF_8);
        status = 404;
      }
      exchange.getResponseHeaders().set("Content-Type", "application/json");
      exchange.sendResponseHeaders(status, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    }
  }

  /** The sandbox's event log: pulls and pod stops, one line each, in the order they happened. */
  static final class Events {
    private Events() {}

    static synchronized void append(Path events, String line) {
      try {
        Files.writeString(
            events, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }
}
