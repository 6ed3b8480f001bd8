package io.etcdrunbooks.worker;

import io.etcdrunbooks.testkit.Sandbox;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Reads how each plain member's etcd runs, from its process ({@code /proc/<pid>/exe}, {@code
 * cmdline} and the {@code ETCD_*} part of {@code environ}), every 50 ms during a runbook: the flags
 * each member ran with on each version it ran, the version taken from the binary's directory
 * ({@code .../versions/3.6.16/etcd}).
 */
final class MemberFlagsWatch implements AutoCloseable {

  /** What one member's process was started with: its arguments and ETCD_* variables. */
  record Started(List<String> args, Map<String, String> env) {}

  private final Sandbox sandbox;
  private final List<String> members;
  private final Map<String, Map<String, Started>> seen = new ConcurrentHashMap<>();
  private final AtomicBoolean stop = new AtomicBoolean();
  private final Thread thread;

  private MemberFlagsWatch(Sandbox sandbox, List<String> members) {
    this.sandbox = sandbox;
    this.members = members;
    this.thread = new Thread(this::watch, "member-flags-watch");
  }

  static MemberFlagsWatch start(Sandbox sandbox, List<String> members) {
    MemberFlagsWatch watch = new MemberFlagsWatch(sandbox, members);
    watch.readOnce();
    watch.thread.start();
    return watch;
  }

  private void watch() {
    while (!stop.get()) {
      readOnce();
      try {
        TimeUnit.MILLISECONDS.sleep(50);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private void readOnce() {
    for (String member : members) {
      try {
        Path proc = Path.of("/proc", Long.toString(sandbox.pidOf(member)));
        Path exe = Files.readSymbolicLink(proc.resolve("exe"));
        String version = exe.getParent().getFileName().toString();
        List<String> cmdline = split(Files.readAllBytes(proc.resolve("cmdline")));
        Map<String, String> env = new TreeMap<>();
        for (String v : split(Files.readAllBytes(proc.resolve("environ")))) {
          if (v.startsWith("ETCD_") && v.contains("=")) {
            env.put(v.substring(0, v.indexOf('=')), v.substring(v.indexOf('=') + 1));
          }
        }
        // the exec'ing shell has the binary's name but not yet etcd's environment read back: only
        // a process that is etcd itself counts
        if (!exe.getFileName().toString().equals("etcd")) continue;
        seen.computeIfAbsent(member, m -> new ConcurrentHashMap<>())
            .putIfAbsent(version, new Started(cmdline.subList(1, cmdline.size()), env));
      } catch (Exception notRunningNow) {
        // between a stop and a start, or the pid file being rewritten
      }
    }
  }

  private static List<String> split(byte[] nulSeparated) {
    String all = new String(nulSeparated, StandardCharsets.UTF_8);
    return new ArrayList<>(Arrays.stream(all.split("\0")).filter(s -> !s.isEmpty()).toList());
  }

  /** Per member, per version it ran: what it was started with. */
  Map<String, Map<String, Started>> stop() throws InterruptedException {
    stop.set(true);
    thread.join(5_000);
    readOnce();
    Map<String, Map<String, Started>> copy = new TreeMap<>();
    seen.forEach((m, byVersion) -> copy.put(m, new TreeMap<>(byVersion)));
    return copy;
  }

  @Override
  public void close() {
    stop.set(true);
  }
}
