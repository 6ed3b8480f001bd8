package io.etcdrunbooks.testkit;

import io.etcdrunbooks.activities.etcd.TlsMaterial;
import io.etcdrunbooks.activities.host.BinaryInstaller;
import io.etcdrunbooks.activities.host.HostActivitiesImpl;
import io.etcdrunbooks.activities.host.PlainProcessServiceManager;
import io.etcdrunbooks.activities.release.LocalDirReleaseStore;
import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.activities.release.ReleaseStores.FirstMatchReleaseStore;
import io.etcdrunbooks.activities.release.UrlTemplateReleaseStore;
import io.etcdrunbooks.activities.ssh.Shell;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.BackupSpec;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.InventoryLoader;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.ReleaseSource;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.inventory.SshSpec;
import io.etcdrunbooks.workflows.activities.HostActivities.InstallRequest;
import io.etcdrunbooks.workflows.activities.HostActivities.LogTailRequest;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.etcdrunbooks.workflows.model.MemberRef;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.sshd.common.config.keys.writer.openssh.OpenSSHKeyPairResourceWriter;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A local etcd cluster on 127.0.0.1 in which every member is its own "host" with its own SSH
 * server. Members are installed and started through the product's host code over real SSH, exactly
 * as on real hosts. etcd processes run in their own sessions, so they survive the JVM; {@link
 * #close()} (also run at JVM shutdown) stops them. With {@link SandboxSpec#tls()}, members serve
 * clients over https and require a client certificate of the sandbox's own CA. Tests usually get
 * one through {@link EtcdSandboxExtension}.
 */
public final class Sandbox implements EtcdTestCluster {

  private static final Logger log = LoggerFactory.getLogger(Sandbox.class);
  private static final String MARKER = ".etcd-runbooks-sandbox";
  private static final Duration HEALTHY_TIMEOUT = Duration.ofSeconds(60);
  private static final String MANIFEST = "etc/kubernetes/manifests/etcd.yaml";
  private static final String STASH_DIR = "etc/kubernetes/etcd-runbooks-stopped";
  private static final String STATIC_POD_LOG = "var/log/etcd.log";

  /** Key id of the backup key every sandbox generates for itself. */
  public static final String BACKUP_KEY_ID = "sandbox";

  private final SandboxSpec spec;
  private final Path dir;
  private final Map<String, SandboxHost> hosts = new LinkedHashMap<>();
  private final Map<String, KubeletStandIn> kubelets = new LinkedHashMap<>();
  private ImageRegistryStandIn registry;
  private final PortReservations portReservations = new PortReservations();
  private ReleaseStore releases;
  private final Thread shutdownHook = new Thread(this::close, "sandbox-shutdown");
  private Path inventoryFile;
  private Inventory inventory;
  private Path knownHostsFile;
  private PublicKey clientKey;
  private TestCertificates.Material certificates;
  private boolean closed;

  private Sandbox(SandboxSpec spec) {
    this.spec = spec;
    this.dir = spec.dir().toAbsolutePath().normalize();
  }

  /**
   * Builds the sandbox in a fresh directory, starts every member and waits (bounded) until all are
   * healthy.
   */
  public static Sandbox create(SandboxSpec spec, ReleaseStore releases) {
    if (Boolean.getBoolean(RealEtcd.FORBIDDEN_PROPERTY)) {
      throw new IllegalStateException(
          "this test starts real etcd ("
              + spec.cluster()
              + "), but runs with the fast tests: mark its class @"
              + RealEtcd.class.getName());
    }
    Sandbox sandbox = new Sandbox(spec);
    Runtime.getRuntime().addShutdownHook(sandbox.shutdownHook);
    try {
      sandbox.build(releases);
      return sandbox;
    } catch (IOException e) {
      sandbox.close();
      throw new UncheckedIOException(
          "cannot create the sandbox in " + sandbox.dir + ": " + e.getMessage(), e);
    } catch (RuntimeException | Error e) {
      sandbox.close();
      throw e;
    }
  }

  @Override
  public Path inventoryFile() {
    return inventoryFile;
  }

  public Inventory inventory() {
    return inventory;
  }

  @Override
  public ClusterSpec cluster() {
    return inventory.cluster(spec.cluster());
  }

  public Path dir() {
    return dir;
  }

  /**
   * The CA, server and client certificates of a sandbox with {@link SandboxSpec#tls()}; empty
   * without.
   */
  public Optional<TestCertificates.Material> certificates() {
    return Optional.ofNullable(certificates);
  }

  public Path hostRoot(String member) {
    return dir.resolve("hosts").resolve(member);
  }

  /** Static-pod sandboxes: where the member's manifest is when kubelet runs it. */
  public Path manifestPath(String member) {
    return hostRoot(member).resolve(MANIFEST);
  }

  /**
   * Static-pod sandboxes: the image repository the inventory names (service.imageRepository) and
   * the nodes' crictl; it holds the tag {@code <version>-0} of every version of the release store.
   */
  public ImageRegistryStandIn registry() {
    if (registry == null) throw new IllegalStateException("only static-pod sandboxes have one");
    return registry;
  }

  /**
   * Static-pod sandboxes: what the nodes' crictl pulled ({@code pull <member> <image>}), what
   * kubelet pulled itself ({@code kubelet-pull ...}) and which pods it stopped ({@code stop
   * <member>}), in the order it happened.
   */
  public List<String> events() {
    try {
      return Files.exists(eventLog()) ? Files.readAllLines(eventLog()) : List.of();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path eventLog() {
    return dir.resolve("events.log");
  }

  /** A kubeadm image tag: the etcd version, then kubeadm's build suffix. */
  private static String tag(String version) {
    return version + "-0";
  }

  /** Static-pod hosts get the crictl stand-in on their PATH; null (no extra PATH) for others. */
  private Path nodeTools(Path root, String member) {
    if (registry == null) return null;
    Path bin = root.resolve("usr/local/bin");
    registry.installCrictl(bin, root, member);
    return bin;
  }

  private KubeletStandIn kubelet(String member, Path root) {
    return KubeletStandIn.start(
        member,
        manifestPath(member),
        root.resolve(STATIC_POD_LOG),
        root.resolve("etc/etcd").resolve(PlainProcessServiceManager.PID_FILE),
        releases,
        image -> registry.pullForKubelet(root, member, image),
        stopped -> ImageRegistryStandIn.Events.append(eventLog(), "stop " + stopped));
  }

  /** Static-pod sandboxes: where the stopped member's manifest is kept. */
  public Path stashDir(String member) {
    return hostRoot(member).resolve(STASH_DIR);
  }

  /**
   * The etcd pid from the pid file on a host, -1 when there is none or it does not run. Hosts are
   * named after the member they were made for, so this is the member's pid until a replacement with
   * another name reuses the host.
   */
  public long pidOf(String host) {
    return etcdPid(hostRoot(host).resolve("etc/etcd").resolve(PlainProcessServiceManager.PID_FILE));
  }

  /**
   * A new, empty "host" for a member to come, as a machine an operator brings up to replace a
   * failed one: its own SSH server and host key (added to the sandbox's known_hosts), directories,
   * and two free ports. Nothing runs on it.
   *
   * @return where a member named {@code memberName} would run there; its paths follow the sandbox's
   *     layout
   */
  public synchronized MemberPlacement addHost(String hostName, String memberName) {
    if (spec.staticPods() && !hostName.equals(memberName)) {
      // the static-pod layout finds a member's manifest by its name: {member} in the inventory's
      // manifest path
      throw new IllegalArgumentException(
          "in a static-pod sandbox a host is named after its member: use addHost(\""
              + memberName
              + "\", \""
              + memberName
              + "\")");
    }
    if (hosts.containsKey(hostName))
      throw new IllegalArgumentException("the sandbox already has a host '" + hostName + "'");
    try {
      Path root = hostRoot(hostName);
      Files.createDirectories(root.resolve("opt/etcd"));
      Files.createDirectories(root.resolve("etc/etcd"));
      Files.createDirectories(root.resolve("etc/ssh"));
      Files.createDirectories(root.resolve("var/lib"));
      SandboxHost host =
          SandboxHost.start(
              root.resolve("etc/ssh/ssh_host_ecdsa_key"),
              System.getProperty("user.name"),
              clientKey,
              nodeTools(root, memberName));
      hosts.put(hostName, host);
      Files.writeString(
          knownHostsFile, host.knownHostsLine() + "\n", java.nio.file.StandardOpenOption.APPEND);
      List<Integer> ports = portReservations.reserve(2);
      if (spec.staticPods()) {
        Files.createDirectories(manifestPath(memberName).getParent());
        Files.createDirectories(root.resolve("var/log"));
        kubelets.put(memberName, kubelet(memberName, root));
      }
      boolean plain = !spec.staticPods();
      return new MemberPlacement(
          memberName,
          "127.0.0.1",
          host.port(),
          // MemberPlacement takes the peer URL first (MemberSpec the client URL)
          (spec.kubeadmPki() ? "https" : "http") + "://127.0.0.1:" + ports.get(0),
          clientScheme() + "://127.0.0.1:" + ports.get(1),
          root.resolve("var/lib/etcd").toString(),
          plain ? root.resolve("opt/etcd").toString() : null,
          plain ? root.resolve("etc/etcd").toString() : null);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot add host " + hostName + " to the sandbox: " + e.getMessage(), e);
    }
  }

  /**
   * Static-pod sandboxes: the host's kubelet stops, taking its etcd with it, as when a node fails;
   * its SSH server stays up. No-op for a host without a kubelet stand-in.
   */
  public synchronized void stopKubelet(String member) {
    KubeletStandIn kubelet = kubelets.remove(member);
    if (kubelet != null) kubelet.close();
  }

  /** SIGKILLs the member's etcd, as a crash would, and waits (bounded) until it is gone. */
  public void kill(String member) {
    long pid = pidOf(member);
    if (pid < 0) return;
    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    awaitGone(
        hostRoot(member).resolve("etc/etcd").resolve(PlainProcessServiceManager.PID_FILE),
        Duration.ofSeconds(10));
  }

  /** Kills every member's etcd (SIGKILL: a teardown) and stops every SSH server. Idempotent. */
  @Override
  public synchronized void close() {
    if (closed) return;
    closed = true;
    long began = System.nanoTime();
    kubelets.values().forEach(KubeletStandIn::close);
    kubelets.clear();
    if (registry != null) registry.close();
    stopEtcds(dir);
    hosts
        .values()
        .forEach(
            host -> {
              try {
                host.close();
              } catch (IOException | RuntimeException e) {
                log.warn("stopping a sandbox SSH server: {}", e.toString());
              }
            });
    hosts.clear();
    portReservations.close();
    log.info(
        "sandbox '{}' stopped in {} ms", spec.cluster(), (System.nanoTime() - began) / 1_000_000);
    if (Thread.currentThread() != shutdownHook) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException shuttingDown) {
        // the hook runs anyway and finds the sandbox closed
      }
    }
  }

  private void build(ReleaseStore releases) throws IOException {
    this.releases = releases;
    prepareDirectory();
    Path sshDir = Files.createDirectories(dir.resolve("ssh"));
    KeyPair clientKeyPair = generateKeyPair();
    clientKey = clientKeyPair.getPublic();
    Path privateKey = sshDir.resolve("id_ecdsa");
    writeClientKey(clientKeyPair, privateKey);
    String user = System.getProperty("user.name");
    if (spec.tls()) {
      try {
        certificates = TestCertificates.write(dir.resolve("pki"));
      } catch (Exception e) {
        throw new IOException("cannot write the sandbox's TLS certificates: " + e, e);
      }
    }

    if (spec.staticPods()) {
      registry =
          new ImageRegistryStandIn(
              dir.resolve("registry"),
              eventLog(),
              releases.versions().stream().map(Sandbox::tag).toList());
    }
    List<String> names = new ArrayList<>();
    for (int i = 1; i <= spec.members(); i++) names.add("m" + i);
    List<Integer> ports = portReservations.reserve(2 * names.size());
    List<MemberSpec> members = new ArrayList<>();
    List<String> knownHosts = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      String name = names.get(i);
      Path root = hostRoot(name);
      Files.createDirectories(root.resolve("opt/etcd"));
      Files.createDirectories(root.resolve("etc/etcd"));
      Files.createDirectories(root.resolve("etc/ssh"));
      Files.createDirectories(root.resolve("var/lib"));
      Files.createDirectory(
          root.resolve("var/lib/etcd"),
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      SandboxHost host =
          SandboxHost.start(
              root.resolve("etc/ssh/ssh_host_ecdsa_key"), user, clientKey, nodeTools(root, name));
      // the node already has the image it starts with, as kubeadm init pulled it
      if (registry != null)
        ImageRegistryStandIn.markPulled(root, registry.image(tag(spec.version())));
      hosts.put(name, host);
      knownHosts.add(host.knownHostsLine());
      boolean plain = !spec.staticPods();
      if (plain) placeBinaries(root.resolve("opt/etcd"), spec.version());
      members.add(
          new MemberSpec(
              name,
              "127.0.0.1",
              host.port(),
              clientScheme() + "://127.0.0.1:" + ports.get(2 * i),
              (spec.kubeadmPki() ? "https" : "http") + "://127.0.0.1:" + ports.get(2 * i + 1),
              root.resolve("var/lib/etcd").toString(),
              plain ? root.resolve("opt/etcd").toString() : null,
              plain ? root.resolve("etc/etcd").toString() : null));
    }
    knownHostsFile = sshDir.resolve("known_hosts");
    Files.writeString(knownHostsFile, String.join("\n", knownHosts) + "\n");

    String initialCluster =
        members.stream().map(m -> m.name() + "=" + m.peerUrl()).collect(Collectors.joining(","));
    for (MemberSpec m : members) {
      if (spec.staticPods()) {
        writeManifest(m, initialCluster);
        continue;
      }
      Map<String, String> env = new LinkedHashMap<>();
      env.put("ETCD_NAME", m.name());
      env.put("ETCD_DATA_DIR", m.dataDir());
      env.put("ETCD_LISTEN_CLIENT_URLS", m.clientUrl());
      env.put("ETCD_ADVERTISE_CLIENT_URLS", m.clientUrl());
      env.put("ETCD_LISTEN_PEER_URLS", m.peerUrl());
      env.put("ETCD_INITIAL_ADVERTISE_PEER_URLS", m.peerUrl());
      env.put("ETCD_INITIAL_CLUSTER", initialCluster);
      env.put("ETCD_INITIAL_CLUSTER_STATE", "new");
      env.put("ETCD_INITIAL_CLUSTER_TOKEN", spec.cluster());
      env.putAll(tlsSettings(m.name()));
      env.putAll(spec.extraEnvByMember().getOrDefault(m.name(), Map.of()));
      Files.writeString(
          Path.of(m.serviceDir()).resolve(PlainProcessServiceManager.ENV_FILE),
          env.entrySet().stream()
              .map(e -> e.getKey() + "=" + e.getValue() + "\n")
              .collect(Collectors.joining()));
    }

    if (spec.staticPods()) {
      for (MemberSpec m : members) {
        Path root = hostRoot(m.name());
        kubelets.put(m.name(), kubelet(m.name(), root));
      }
    }
    Path backupKey = writeBackupKey(dir.resolve("backup.key"));
    ClusterSpec cluster =
        new ClusterSpec(
            spec.cluster(),
            members,
            serviceSpec(),
            new SshSpec(user, 0, privateKey.toString(), knownHostsFile.toString()),
            spec.tls() ? certificates.rsaClient() : null,
            dir.resolve("backups").toString(),
            List.of(),
            new BackupSpec(true, backupKey.toString(), BACKUP_KEY_ID, null, null));
    Files.createDirectories(dir.resolve("backups"));
    inventoryFile = dir.resolve("inventory.yaml");
    InventoryLoader.write(
        new Inventory(releaseSource(releases), Map.of(spec.cluster(), cluster)), inventoryFile);
    inventory = InventoryLoader.load(inventoryFile);

    try (SshConnector ssh = new SshConnector()) {
      HostActivitiesImpl hostActivities =
          new HostActivitiesImpl(new ClusterTargets(() -> inventory, ssh), releases);
      ExecutorService pool = Executors.newFixedThreadPool(names.size());
      try {
        List<Future<?>> started = new ArrayList<>();
        for (String name : names) {
          started.add(
              pool.submit(
                  () -> {
                    hostActivities.installVersion(
                        new InstallRequest(spec.cluster(), name, spec.version()));
                    hostActivities.startMember(new MemberRef(spec.cluster(), name));
                    return null;
                  }));
        }
        for (Future<?> f : started) f.get();
      } catch (java.util.concurrent.ExecutionException e) {
        throw e.getCause() instanceof RuntimeException r
            ? r
            : new IllegalStateException(e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while starting the sandbox", e);
      } finally {
        pool.shutdownNow();
      }
      awaitHealthy(members, hostActivities);
    }
    log.info(
        "sandbox '{}' with {} members on etcd {} is up; inventory {}",
        spec.cluster(),
        members.size(),
        spec.version(),
        inventoryFile);
  }

  /**
   * Copies the starting version's binaries where the install puts them, as a host image would hold
   * them: the install that follows finds them by their SHA-256 and uploads nothing (an upload over
   * SSH costs a second of CPU per member, in every sandbox of every test). Runbooks' own installs
   * of other versions still upload.
   */
  private void placeBinaries(Path installDir, String version) throws IOException {
    Path versionDir = Files.createDirectories(installDir.resolve("versions").resolve(version));
    Path binDir = releases.binDir(version);
    for (String binary : BinaryInstaller.BINARIES) {
      Path source = binDir.resolve(binary);
      if (Files.exists(source))
        Files.copy(source, versionDir.resolve(binary), StandardCopyOption.COPY_ATTRIBUTES);
    }
  }

  private String clientScheme() {
    return spec.tls() ? "https" : "http";
  }

  /**
   * etcd's settings (as its environment variables) that make it serve clients over https with
   * client certificates; each member serves its own copy of the server certificate, in its host's
   * etc/etcd/pki, as real hosts each have theirs.
   */
  private Map<String, String> tlsSettings(String member) throws IOException {
    if (!spec.tls()) return Map.of();
    Path pki = Files.createDirectories(hostRoot(member).resolve("etc/etcd/pki"));
    Path cert = pki.resolve("server.crt");
    Path key = pki.resolve("server.key");
    if (!Files.exists(cert)) {
      Files.copy(certificates.serverCert(), cert);
      Files.copy(certificates.serverKey(), key, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
    }
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("ETCD_CERT_FILE", cert.toString());
    settings.put("ETCD_KEY_FILE", key.toString());
    settings.put("ETCD_TRUSTED_CA_FILE", certificates.caFile().toString());
    settings.put("ETCD_CLIENT_CERT_AUTH", "true");
    if (spec.kubeadmPki()) settings.putAll(kubeadmCertificates(member, pki));
    return settings;
  }

  /** kubeadm's peer and healthcheck client certificates of a member, as kubeadm issues them. */
  private Map<String, String> kubeadmCertificates(String member, Path pki) throws IOException {
    Path peer = pki.resolve("peer.crt");
    try {
      if (!Files.exists(peer)) {
        TestCertificates.Authority ca = certificates.authority();
        List<String> names = List.of("127.0.0.1", "localhost");
        place(
            ca.issue(
                member + "-peer",
                "CN=" + member,
                names,
                List.of(KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth),
                java.time.Instant.now(),
                TestCertificates.VALIDITY),
            pki,
            "peer");
        place(
            ca.issue(
                member + "-healthcheck-client",
                "CN=kube-etcd-healthcheck-client,O=system:masters",
                List.of(),
                List.of(KeyPurposeId.id_kp_clientAuth),
                java.time.Instant.now(),
                TestCertificates.VALIDITY),
            pki,
            "healthcheck-client");
      }
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("cannot issue kubeadm's certificates of " + member, e);
    }
    Map<String, String> settings = new LinkedHashMap<>();
    settings.put("ETCD_PEER_CERT_FILE", peer.toString());
    settings.put("ETCD_PEER_KEY_FILE", pki.resolve("peer.key").toString());
    settings.put("ETCD_PEER_TRUSTED_CA_FILE", certificates.caFile().toString());
    settings.put("ETCD_PEER_CLIENT_CERT_AUTH", "true");
    return settings;
  }

  private static void place(TestCertificates.Issued issued, Path pki, String name)
      throws IOException {
    Files.move(issued.cert(), pki.resolve(name + ".crt"));
    Files.move(issued.key(), pki.resolve(name + ".key"));
  }

  private ServiceSpec serviceSpec() {
    if (!spec.staticPods()) return new ServiceSpec(ServiceSpec.PLAIN, null);
    String hosts = dir.resolve("hosts").toString() + "/";
    String root = hosts + "{member}/";
    // The sandbox user owns every host's files, so no sudo; the stand-in's log file stands in for
    // crictl logs.
    // {member} is filled in as a quoted shell word, so in the command it stands outside the quoted
    // parts.
    return new ServiceSpec(
        ServiceSpec.STATIC_POD,
        null,
        root + MANIFEST,
        root + STASH_DIR,
        null,
        "tail -n {lines} " + Shell.quote(hosts) + "{member}" + Shell.quote("/" + STATIC_POD_LOG),
        false,
        registry.repository());
  }

  /** A manifest in kubeadm's layout (comment aside) running etcd with the spec's version. */
  private void writeManifest(MemberSpec m, String initialCluster) throws IOException {
    List<String> flags =
        new ArrayList<>(
            List.of(
                "--advertise-client-urls=" + m.clientUrl(),
                "--data-dir=" + m.dataDir(),
                "--initial-advertise-peer-urls=" + m.peerUrl(),
                "--initial-cluster=" + initialCluster,
                "--initial-cluster-state=new",
                "--initial-cluster-token=" + spec.cluster(),
                "--listen-client-urls=" + m.clientUrl(),
                "--listen-peer-urls=" + m.peerUrl(),
                "--name=" + m.name()));
    Map<String, String> settings = new LinkedHashMap<>(tlsSettings(m.name()));
    settings.putAll(spec.extraEnvByMember().getOrDefault(m.name(), Map.of()));
    settings.forEach(
        (env, value) ->
            flags.add(
                "--"
                    + env.replaceFirst("^ETCD_", "")
                        .toLowerCase(java.util.Locale.ROOT)
                        .replace('_', '-')
                    + "="
                    + value));
    StringBuilder yaml =
        new StringBuilder()
            .append("# etcd of sandbox member ")
            .append(m.name())
            .append(", in kubeadm's layout\n")
            .append("apiVersion: v1\n")
            .append("kind: Pod\n")
            .append("metadata:\n")
            .append("  annotations:\n")
            .append("    kubeadm.kubernetes.io/etcd.advertise-client-urls: ")
            .append(m.clientUrl())
            .append("\n")
            .append("  creationTimestamp: null\n")
            .append("  labels:\n")
            .append("    component: etcd\n")
            .append("    tier: control-plane\n")
            .append("  name: etcd\n")
            .append("  namespace: kube-system\n")
            .append("spec:\n")
            .append("  containers:\n")
            .append("  - command:\n")
            .append("    - etcd\n");
    flags.forEach(f -> yaml.append("    - ").append(f).append("\n"));
    yaml.append("    image: ")
        .append(registry.image(tag(spec.version())))
        .append("\n")
        .append("    imagePullPolicy: IfNotPresent\n")
        .append("    name: etcd\n")
        .append("    resources:\n")
        .append("      requests:\n")
        .append("        cpu: 100m # kubeadm's default\n")
        .append("        memory: 100Mi\n")
        .append("    volumeMounts:\n")
        .append("    - mountPath: ")
        .append(m.dataDir())
        .append("\n")
        .append("      name: etcd-data\n")
        .append("  hostNetwork: true\n")
        .append("  priorityClassName: system-node-critical\n")
        .append("  volumes:\n")
        .append("  - hostPath:\n")
        .append("      path: ")
        .append(m.dataDir())
        .append("\n")
        .append("      type: DirectoryOrCreate\n")
        .append("    name: etcd-data\n")
        .append("status: {}\n");
    Path manifest = manifestPath(m.name());
    Files.createDirectories(manifest.getParent());
    Files.createDirectories(hostRoot(m.name()).resolve("var/log"));
    Files.writeString(manifest, yaml);
  }

  private void awaitHealthy(List<MemberSpec> members, HostActivitiesImpl hostActivities) {
    HttpClient.Builder builder = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2));
    if (spec.tls()) builder.sslContext(TlsMaterial.load(certificates.rsaClient()).sslContext());
    HttpClient http = builder.build();
    long deadline = System.nanoTime() + HEALTHY_TIMEOUT.toNanos();
    List<MemberSpec> waiting = new ArrayList<>(members);
    while (!waiting.isEmpty()) {
      waiting.removeIf(m -> healthy(http, m.clientUrl()) && onClusterVersion(http, m.clientUrl()));
      if (waiting.isEmpty()) return;
      if (System.nanoTime() > deadline) {
        String logs =
            waiting.stream()
                .map(
                    m ->
                        m.name()
                            + ":\n"
                            + hostActivities.logTail(
                                new LogTailRequest(spec.cluster(), m.name(), 15)))
                .collect(Collectors.joining("\n"));
        throw new IllegalStateException(
            "sandbox members "
                + waiting.stream().map(MemberSpec::name).toList()
                + " are not healthy after "
                + HEALTHY_TIMEOUT.toSeconds()
                + " s; their last log lines:\n"
                + logs);
      }
      sleep(200);
    }
  }

  /**
   * The member reports the cluster version of the sandbox's minor: etcd reports 3.0.0 until its
   * leader has decided the version, a moment after the members serve, and a test that reads the
   * cluster at once must not see that.
   */
  private boolean onClusterVersion(HttpClient http, String clientUrl) {
    String[] parts = spec.version().split("\\.");
    String expected = "\"etcdcluster\":\"" + parts[0] + "." + parts[1] + ".0\"";
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create(clientUrl + "/version"))
                  .timeout(Duration.ofSeconds(2))
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200 && response.body().replace(" ", "").contains(expected);
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  private static boolean healthy(HttpClient http, String clientUrl) {
    try {
      HttpResponse<String> response =
          http.send(
              HttpRequest.newBuilder(URI.create(clientUrl + "/health"))
                  .timeout(Duration.ofSeconds(2))
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return response.statusCode() == 200
          && response.body().replace(" ", "").contains("\"health\":\"true\"");
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  /**
   * Makes dir empty, stopping the etcd members of a previous sandbox there; refuses a directory it
   * did not make.
   */
  private void prepareDirectory() throws IOException {
    if (Files.isDirectory(dir)) {
      boolean empty;
      try (Stream<Path> entries = Files.list(dir)) {
        empty = entries.findAny().isEmpty();
      }
      if (!empty) {
        if (!Files.exists(dir.resolve(MARKER))) {
          throw new IllegalArgumentException(
              "sandbox directory "
                  + dir
                  + " is not empty and holds no earlier sandbox; choose another");
        }
        stopEtcds(dir);
        deleteTree(dir);
      }
    }
    Files.createDirectories(dir);
    Files.writeString(dir.resolve(MARKER), "created by io.etcdrunbooks.testkit.Sandbox\n");
  }

  /** Stops the etcd processes named by the pid files under dir/hosts. */
  private static void stopEtcds(Path dir) {
    Path hostsDir = dir.resolve("hosts");
    if (!Files.isDirectory(hostsDir)) return;
    List<Path> pidFiles;
    try (Stream<Path> roots = Files.list(hostsDir)) {
      pidFiles =
          roots
              .map(r -> r.resolve("etc/etcd").resolve(PlainProcessServiceManager.PID_FILE))
              .filter(Files::exists)
              .toList();
    } catch (IOException e) {
      log.warn("cannot list sandbox hosts in {}: {}", hostsDir, e.toString());
      return;
    }
    // A teardown, not a runbook's stop: nothing reads these members again, and a graceful stop of
    // members going down together costs seconds of leadership handovers per sandbox.
    for (Path pidFile : pidFiles) {
      long pid = etcdPid(pidFile);
      if (pid > 0) ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
    for (Path pidFile : pidFiles) awaitGone(pidFile, Duration.ofSeconds(5));
  }

  private static boolean awaitGone(Path pidFile, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (etcdPid(pidFile) > 0) {
      if (System.nanoTime() > deadline) return false;
      sleep(50);
    }
    return true;
  }

  /**
   * The pid in the file when it names a live etcd (argv[0] is an etcd binary; zombies have no
   * cmdline), else -1.
   */
  static long etcdPid(Path pidFile) {
    try {
      if (!Files.exists(pidFile)) return -1;
      String text = Files.readString(pidFile).strip();
      if (!text.matches("\\d+")) return -1;
      long pid = Long.parseLong(text);
      Path cmdline = Path.of("/proc", text, "cmdline");
      if (!Files.exists(cmdline)) return -1;
      String argv0 =
          new String(Files.readAllBytes(cmdline), StandardCharsets.UTF_8).split("\0", 2)[0];
      return argv0.equals("etcd") || argv0.endsWith("/etcd") ? pid : -1;
    } catch (IOException | RuntimeException e) {
      return -1; // the process went away while we looked
    }
  }

  static ReleaseSource releaseSource(ReleaseStore releases) {
    if (releases instanceof LocalDirReleaseStore local) {
      return new ReleaseSource(local.dir().toAbsolutePath().toString(), null, Map.of(), null);
    }
    if (releases instanceof UrlTemplateReleaseStore url) {
      return new ReleaseSource(
          null, url.urlTemplate(), url.sha256(), url.downloadDir().toAbsolutePath().toString());
    }
    if (releases instanceof FirstMatchReleaseStore combined) {
      Optional<ReleaseSource> local =
          combined.stores().stream()
              .filter(LocalDirReleaseStore.class::isInstance)
              .findFirst()
              .map(Sandbox::releaseSource);
      Optional<ReleaseSource> url =
          combined.stores().stream()
              .filter(UrlTemplateReleaseStore.class::isInstance)
              .findFirst()
              .map(Sandbox::releaseSource);
      return new ReleaseSource(
          local.map(ReleaseSource::localDir).orElse(null),
          url.map(ReleaseSource::urlTemplate).orElse(null),
          url.map(ReleaseSource::sha256).orElse(Map.of()),
          url.map(ReleaseSource::downloadDir).orElse(null));
    }
    throw new IllegalArgumentException(
        "the sandbox cannot describe a "
            + releases.getClass().getSimpleName()
            + " in its inventory; use a LocalDirReleaseStore or UrlTemplateReleaseStore");
  }

  private static KeyPair generateKeyPair() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(256);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot generate the sandbox's SSH client key", e);
    }
  }

  /**
   * A fresh random 256-bit backup key, base64 in a 0600 file, as an operator would make with
   * openssl rand -base64 32.
   */
  static Path writeBackupKey(Path file) throws IOException {
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, Base64.getEncoder().encodeToString(key) + "\n");
    return file;
  }

  private static void writeClientKey(KeyPair key, Path privateKey) throws IOException {
    Files.createFile(
        privateKey,
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try (OutputStream out = Files.newOutputStream(privateKey)) {
      OpenSSHKeyPairResourceWriter.INSTANCE.writePrivateKey(
          key, "etcd-runbooks-sandbox", null, out);
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot write the sandbox's SSH client key", e);
    }
    try (OutputStream out =
        Files.newOutputStream(privateKey.resolveSibling(privateKey.getFileName() + ".pub"))) {
      OpenSSHKeyPairResourceWriter.INSTANCE.writePublicKey(
          key.getPublic(), "etcd-runbooks-sandbox", out);
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot write the sandbox's SSH public key", e);
    }
  }

  private static void deleteTree(Path root) throws IOException {
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
