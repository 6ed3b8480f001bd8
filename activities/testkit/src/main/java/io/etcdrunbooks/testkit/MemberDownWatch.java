package io.etcdrunbooks.testkit;

import io.etcdrunbooks.inventory.MemberSpec;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Every member of a sandbox watched from outside, as its host and its clients see it: when its etcd
 * process goes away, and when it answers healthy on a version again. Down time measured the same
 * way for every member, whoever restarted it; for a test or bench that kills a worker mid-restart.
 */
public final class MemberDownWatch implements AutoCloseable {

  /** One member's restart as seen from outside: stopped until ready, and its new process. */
  public record Restart(long millis, long pidAfter) {}

  private final Sandbox sandbox;
  private final String version;
  private final Consumer<String> onFirstDown;
  private final Map<String, Long> pidsBefore = new LinkedHashMap<>();
  private final Map<String, Long> downAt = new ConcurrentHashMap<>();
  private final Map<String, Restart> restarts = new ConcurrentHashMap<>();
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofMillis(200)).build();
  private final Thread thread;
  private volatile boolean closed;

  /**
   * @param onFirstDown called on the watching thread, at once, with the first member seen down
   */
  MemberDownWatch(Sandbox sandbox, String version, Consumer<String> onFirstDown) {
    this.sandbox = sandbox;
    this.version = version;
    this.onFirstDown = onFirstDown;
    for (MemberSpec m : sandbox.cluster().members())
      pidsBefore.put(m.name(), sandbox.pidOf(m.name()));
    thread = new Thread(this::watch, "member-down-watch");
    thread.setDaemon(true);
    thread.start();
  }

  /** The members restarted so far, by name. */
  public Map<String, Restart> restarts() {
    return Map.copyOf(restarts);
  }

  private void watch() {
    List<MemberSpec> members = sandbox.cluster().members();
    while (!closed) {
      for (MemberSpec m : members) {
        String name = m.name();
        if (restarts.containsKey(name)) continue;
        Long down = downAt.get(name);
        if (down == null) {
          if (sandbox.pidOf(name) != pidsBefore.get(name)) {
            downAt.put(name, System.nanoTime());
            if (downAt.size() == 1) onFirstDown.accept(name);
          }
        } else if (readyOnVersion(m)) {
          restarts.put(
              name, new Restart((System.nanoTime() - down) / 1_000_000, sandbox.pidOf(name)));
        }
      }
      try {
        Thread.sleep(5);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private boolean readyOnVersion(MemberSpec member) {
    return get(member, "/health").contains("\"health\":\"true\"")
        && get(member, "/version").contains("\"etcdserver\":\"" + version + "\"");
  }

  private String get(MemberSpec member, String path) {
    try {
      return http.send(
              HttpRequest.newBuilder(URI.create(member.clientUrl() + path))
                  .timeout(Duration.ofMillis(500))
                  .build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    } catch (java.io.IOException e) {
      return "";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "";
    }
  }

  @Override
  public void close() {
    closed = true;
    thread.interrupt();
  }
}
