package io.etcdrunbooks.testkit;

import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.inventory.BackupSpec;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.InventoryLoader;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.inventory.SshSpec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * An etcd cluster on real hosts: systemd-nspawn machines booting Debian with systemd as PID 1 and
 * OpenSSH ({@code deploy/scripts/machines.sh}), one member per machine on its own loopback address
 * with the standard ports, etcd a systemd unit with an environment file. The inventory reaches them
 * as {@value #SSH_USER} (not root, with the documented sudo rules) over SSH with their host keys in
 * a known_hosts file. Every machine is powered off and removed by {@link #close()}, also when the
 * test failed. Needs root.
 */
public final class Machines implements EtcdTestCluster {

  private static final Path SCRIPT = repoRoot().resolve("deploy/scripts/machines.sh");

  /**
   * The runbooks reach the machines as this user, not root, with the sudo rules of {@code
   * deploy/sudoers/etcd-runbooks}; the kit itself sets machines up as root.
   */
  public static final String SSH_USER = "runbooks";

  private final Path dir;
  private final List<String> names = new ArrayList<>();
  private Path inventoryFile;
  private ClusterSpec cluster;
  private Path key;
  private Path knownHostsFile;
  private String net;

  private Machines(Path dir) {
    this.dir = dir;
  }

  /**
   * Boots {@code count} machines with etcd {@code version} installed, starts a cluster {@code
   * cluster} on them and waits until every member is healthy.
   */
  public static Machines start(
      Path dir, String cluster, int count, String version, ReleaseStore releases)
      throws IOException, InterruptedException {
    return start(dir, cluster, count, version, releases, Map.of());
  }

  /** As {@link #start(Path, String, int, String, ReleaseStore)}, with more ETCD_* per member. */
  public static Machines start(
      Path dir,
      String cluster,
      int count,
      String version,
      ReleaseStore releases,
      Map<String, Map<String, String>> extraEnv)
      throws IOException, InterruptedException {
    if (!"root".equals(System.getProperty("user.name"))) {
      throw notRoot(
          "machines need root (systemd-nspawn, as CI runs); skipped as "
              + System.getProperty("user.name"));
    }
    Machines machines = new Machines(Files.createDirectories(dir));
    try {
      machines.boot(cluster, count, version, releases, extraEnv);
      return machines;
    } catch (IOException | InterruptedException | RuntimeException e) {
      machines.close();
      throw e;
    }
  }

  /**
   * In a test, JUnit's "aborted" (the test is skipped, saying why); in the demo or the sandbox
   * command, where JUnit is not on the class path, a plain failure. Looked up by name: a direct
   * reference would make the whole class need JUnit to load.
   */
  private static RuntimeException notRoot(String message) {
    try {
      return (RuntimeException)
          Class.forName("org.opentest4j.TestAbortedException")
              .getConstructor(String.class)
              .newInstance(message);
    } catch (ReflectiveOperationException | ClassCastException noJUnit) {
      return new IllegalStateException(message);
    }
  }

  private void boot(
      String clusterName,
      int count,
      String version,
      ReleaseStore releases,
      Map<String, Map<String, String>> extraEnv)
      throws IOException, InterruptedException {
    Path sshDir = Files.createDirectories(dir.resolve("ssh"));
    key = sshDir.resolve("id_ecdsa");
    run(List.of("ssh-keygen", "-q", "-t", "ecdsa", "-b", "256", "-N", "", "-f", key.toString()));
    // a /24 of its own, so that machines a killed run left behind cannot answer for these
    net = "127.77." + ThreadLocalRandom.current().nextInt(1, 250) + ".";
    List<String> machineNames = new ArrayList<>();
    for (int i = 1; i <= count; i++) machineNames.add("m" + i);
    // side by side: a boot mostly waits (the copy of the root fs, systemd and sshd coming up)
    List<String> knownHosts = bootMachines(machineNames, version);
    List<MemberSpec> members = new ArrayList<>();
    for (String name : machineNames) {
      String address = address(name);
      members.add(
          new MemberSpec(
              name,
              address,
              22,
              "http://" + address + ":2379",
              "http://" + address + ":2380",
              "/var/lib/etcd/data",
              "/opt/etcd",
              null));
    }
    knownHostsFile = sshDir.resolve("known_hosts");
    Files.writeString(knownHostsFile, String.join("\n", knownHosts) + "\n");
    String initialCluster =
        members.stream().map(m -> m.name() + "=" + m.peerUrl()).collect(Collectors.joining(","));
    for (MemberSpec m : members) {
      Files.writeString(
          hostRoot(m.name()).resolve("etc/etcd/etcd.env"),
          String.join(
              "\n",
              "ETCD_NAME=" + m.name(),
              "ETCD_DATA_DIR=" + m.dataDir(),
              "ETCD_LISTEN_CLIENT_URLS=" + m.clientUrl(),
              "ETCD_ADVERTISE_CLIENT_URLS=" + m.clientUrl(),
              "ETCD_LISTEN_PEER_URLS=" + m.peerUrl(),
              "ETCD_INITIAL_ADVERTISE_PEER_URLS=" + m.peerUrl(),
              "ETCD_INITIAL_CLUSTER=" + initialCluster,
              "ETCD_INITIAL_CLUSTER_STATE=new",
              "ETCD_INITIAL_CLUSTER_TOKEN=" + clusterName,
              extraEnv.getOrDefault(m.name(), Map.of()).entrySet().stream()
                  .map(e -> e.getKey() + "=" + e.getValue())
                  .collect(Collectors.joining("\n")),
              ""));
    }
    List<Process> starts = new ArrayList<>();
    for (MemberSpec m : members) {
      // --no-block: a Type=notify member is ready only once a quorum of its peers runs
      starts.add(ssh(key, knownHostsFile, m.host(), "systemctl start --no-block etcd"));
    }
    for (Process p : starts) {
      if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IOException("systemctl start etcd failed: " + output(p));
      }
    }
    for (MemberSpec m : members) awaitHealthy(m);
    Path backupKey = Sandbox.writeBackupKey(dir.resolve("backup.key"));
    Files.createDirectories(dir.resolve("backups"));
    cluster =
        new ClusterSpec(
            clusterName,
            members,
            new ServiceSpec(ServiceSpec.SYSTEMD, "etcd"),
            new SshSpec(SSH_USER, 22, key.toString(), knownHostsFile.toString()),
            null,
            dir.resolve("backups").toString(),
            List.of(),
            new BackupSpec(true, backupKey.toString(), Sandbox.BACKUP_KEY_ID, null, null));
    inventoryFile = dir.resolve("inventory.yaml");
    InventoryLoader.write(
        new Inventory(Sandbox.releaseSource(releases), Map.of(clusterName, cluster)),
        inventoryFile);
  }

  @Override
  public Path inventoryFile() {
    return inventoryFile;
  }

  /**
   * Boots one more machine, with etcd {@code version} installed and its unit in place but not
   * started and not in the cluster; {@code withUnit} false takes the unit file away, as on a host
   * only the OS was installed on. Its known_hosts line is added. Returns its address.
   */
  public String addMachine(String name, String version, boolean withUnit)
      throws IOException, InterruptedException {
    Files.writeString(
        knownHostsFile, bootMachine(name, version) + "\n", java.nio.file.StandardOpenOption.APPEND);
    if (!withUnit)
      rootShell(name, "rm /etc/systemd/system/etcd.service && systemctl daemon-reload");
    return address(name);
  }

  /** Boots the machines side by side; their known_hosts lines, in order. */
  private List<String> bootMachines(List<String> machineNames, String version)
      throws IOException, InterruptedException {
    List<CompletableFuture<String>> boots = new ArrayList<>();
    for (String name : machineNames) {
      boots.add(
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return bootMachine(name, version);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  throw new IllegalStateException("interrupted booting " + name, e);
                }
              },
              runner(machineNames.size())));
    }
    List<String> knownHosts = new ArrayList<>();
    IOException failed = null;
    for (CompletableFuture<String> boot : boots) {
      try {
        knownHosts.add(boot.get());
      } catch (ExecutionException e) {
        IOException cause =
            e.getCause() instanceof UncheckedIOException io
                ? io.getCause()
                : new IOException(e.getCause());
        if (failed == null) failed = cause;
        else failed.addSuppressed(cause);
      }
    }
    if (failed != null) throw failed;
    return knownHosts;
  }

  /** A thread per machine, daemons: a hung boot or stop never keeps the JVM alive. */
  private static java.util.concurrent.Executor runner(int machines) {
    return java.util.concurrent.Executors.newFixedThreadPool(
        Math.max(1, machines),
        r -> {
          Thread t = new Thread(r, "machines");
          t.setDaemon(true);
          return t;
        });
  }

  /** Boots machine {@code name} (m1: .11, m4: .14 of this kit's /24); its known_hosts line. */
  private String bootMachine(String name, String version) throws IOException, InterruptedException {
    String hostKey =
        run(
            List.of(
                "bash",
                SCRIPT.toString(),
                "start",
                name,
                address(name),
                dir.resolve("hosts").toString(),
                key + ".pub",
                version));
    synchronized (names) {
      names.add(name);
    }
    return hostKey.strip();
  }

  private String address(String name) {
    return net + (10 + Integer.parseInt(name.replaceAll("\\D", "")));
  }

  /** Runs a command as root on a machine (outside the runbooks' own SSH user); its output. */
  public String rootShell(String name, String command) throws IOException, InterruptedException {
    Process p = ssh(key, knownHostsFile, address(name), command);
    String out = output(p);
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("'" + command + "' on " + name + " failed: " + out);
    }
    return out;
  }

  /** Pulls the plug of a machine: every process in it dies at once; its disk is kept. */
  public void powerOff(String name) throws IOException, InterruptedException {
    run(List.of("bash", SCRIPT.toString(), "kill", dir.resolve("hosts").toString(), name));
  }

  /** Pulls the plug of a machine and throws its disk away, as when a host is lost. */
  public void destroy(String name) throws IOException, InterruptedException {
    run(List.of("bash", SCRIPT.toString(), "kill", dir.resolve("hosts").toString(), name));
    run(List.of("rm", "-rf", hostRoot(name).toString()));
    synchronized (names) {
      names.remove(name);
    }
  }

  @Override
  public ClusterSpec cluster() {
    return cluster;
  }

  /** A machine's file system, as its root sees it. */
  public Path hostRoot(String name) {
    return dir.resolve("hosts").resolve(name);
  }

  private static void awaitHealthy(MemberSpec member) throws IOException, InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
    String last = "";
    for (int i = 0; i < 120; i++) {
      try {
        HttpResponse<String> health =
            http.send(
                HttpRequest.newBuilder(URI.create(member.clientUrl() + "/health"))
                    .timeout(Duration.ofSeconds(2))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (health.statusCode() == 200 && health.body().contains("\"true\"")) return;
        last = health.body();
      } catch (IOException e) {
        last = e.toString();
      }
      Thread.sleep(500);
    }
    throw new IOException("member " + member.name() + " not healthy within 60 s: " + last);
  }

  private static Process ssh(Path key, Path knownHosts, String address, String command)
      throws IOException {
    return new ProcessBuilder(
            "ssh",
            "-i",
            key.toString(),
            "-o",
            "UserKnownHostsFile=" + knownHosts,
            "-o",
            "StrictHostKeyChecking=yes",
            "-o",
            "BatchMode=yes",
            "root@" + address,
            command)
        .redirectErrorStream(true)
        .start();
  }

  /** Runs the command; its stdout. Its stderr (debootstrap's chatter) goes to machines.log. */
  private String run(List<String> command) throws IOException, InterruptedException {
    Path log = dir.resolve("machines.log");
    Process p =
        new ProcessBuilder(command)
            .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
      p.destroyForcibly();
      String text = Files.readString(log);
      throw new IOException(
          String.join(" ", command)
              + " failed: "
              + text.substring(Math.max(0, text.length() - 3000)));
    }
    return out;
  }

  private static String output(Process p) throws IOException {
    return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
  }

  private static Path repoRoot() {
    Path here = Path.of("").toAbsolutePath();
    while (here != null && !Files.exists(here.resolve("deploy/scripts/machines.sh"))) {
      here = here.getParent();
    }
    if (here == null) throw new IllegalStateException("deploy/scripts/machines.sh not found");
    return here;
  }

  /**
   * Pulls every machine's plug and removes its copy, side by side: nothing of them is kept, so an
   * orderly poweroff (3.7 s for an idle machine on a loaded CI machine) would only cost time.
   */
  @Override
  public void close() {
    List<String> running;
    synchronized (names) {
      running = List.copyOf(names);
    }
    java.util.concurrent.Executor stops = runner(running.size());
    CompletableFuture.allOf(
            running.stream()
                .map(name -> CompletableFuture.runAsync(() -> stop(name), stops))
                .toArray(CompletableFuture[]::new))
        .join();
  }

  private void stop(String name) {
    try {
      run(List.of("bash", SCRIPT.toString(), "remove", dir.resolve("hosts").toString(), name));
    } catch (IOException e) {
      System.err.println("machine " + name + " not stopped: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      System.err.println("machine " + name + " not stopped: interrupted");
    }
  }
}
