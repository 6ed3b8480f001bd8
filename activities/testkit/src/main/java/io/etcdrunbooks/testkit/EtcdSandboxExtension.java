package io.etcdrunbooks.testkit;

import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.ServiceSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real etcd cluster on 127.0.0.1 for tests, as jetcd's {@code EtcdClusterExtension} gives one: a
 * {@link Sandbox} whose members are SSH "hosts" of their own, started before the tests and closed
 * after them.
 *
 * <pre>
 * &#64;RegisterExtension
 * static final EtcdSandboxExtension etcd = EtcdSandboxExtension.builder().version("3.5.30").members(3).tls().build();
 *
 * &#64;Test
 * void discoversTheCluster() {
 *   var activities = new EtcdActivitiesImpl(ClusterTargets.etcdOnly(etcd::inventory));
 *   ...
 * }
 * </pre>
 *
 * Registered on a static field, one sandbox serves the whole class (and its {@code @Nested}
 * classes): it is up before the class's {@code @BeforeAll} methods run and closed after its
 * {@code @AfterAll} methods. On an instance field, every test gets a fresh one. The sandbox lives
 * in a temporary directory of its own, removed when it closes (installed binaries and data take
 * hundreds of MB).
 */
public final class EtcdSandboxExtension
    implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

  private final String clusterName;
  private final int members;
  private final String version;
  private final String serviceKind;
  private final Map<String, Map<String, String>> extraEnvByMember;
  private final boolean tls;
  private final ReleaseStore releases;

  private Sandbox sandbox;
  private Path dir;

  /**
   * The unique id of the JUnit context (class or test) that started the sandbox and so closes it.
   */
  private String owner;

  private EtcdSandboxExtension(Builder builder) {
    this.clusterName = builder.clusterName;
    this.members = builder.members;
    this.version =
        Objects.requireNonNull(
            builder.version,
            "EtcdSandboxExtension needs the etcd version: builder().version(\"3.5.30\")");
    this.serviceKind = builder.serviceKind;
    Map<String, Map<String, String>> extraEnv = new LinkedHashMap<>();
    builder.extraEnvByMember.forEach((member, env) -> extraEnv.put(member, Map.copyOf(env)));
    this.extraEnvByMember = Map.copyOf(extraEnv);
    this.tls = builder.tls;
    this.releases = builder.releases == null ? EtcdReleases.store() : builder.releases;
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public void beforeAll(ExtensionContext context) throws IOException {
    start(context);
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    stop(context);
  }

  @Override
  public void beforeEach(ExtensionContext context) throws IOException {
    start(context);
  }

  @Override
  public void afterEach(ExtensionContext context) throws IOException {
    stop(context);
  }

  /**
   * The running sandbox: its members, hosts, pids, certificates; kill a member with {@code
   * sandbox().kill("m2")}.
   */
  public Sandbox sandbox() {
    if (sandbox == null) {
      throw new IllegalStateException(
          "no sandbox runs: EtcdSandboxExtension starts one only around the tests of the class"
              + " that registers it with @RegisterExtension");
    }
    return sandbox;
  }

  /**
   * The cluster as the sandbox made it (a runbook that changes members rewrites the inventory file,
   * not this).
   */
  public ClusterSpec cluster() {
    return sandbox().cluster();
  }

  public Inventory inventory() {
    return sandbox().inventory();
  }

  public Path inventoryFile() {
    return sandbox().inventoryFile();
  }

  /** The cluster's name in the inventory. */
  public String clusterName() {
    return clusterName;
  }

  private void start(ExtensionContext context) throws IOException {
    if (sandbox != null)
      return; // a static field's sandbox already serves this test or @Nested class
    Path fresh = Files.createTempDirectory("etcd-sandbox-" + clusterName + "-");
    try {
      sandbox =
          Sandbox.create(
              new SandboxSpec(
                  fresh, clusterName, members, version, extraEnvByMember, serviceKind, tls),
              releases);
    } catch (RuntimeException | Error e) {
      deleteTree(fresh);
      throw e;
    }
    dir = fresh;
    owner = context.getUniqueId();
  }

  private void stop(ExtensionContext context) throws IOException {
    if (sandbox == null || !context.getUniqueId().equals(owner)) return;
    try {
      sandbox.close();
    } finally {
      sandbox = null;
      owner = null;
      deleteTree(dir);
      dir = null;
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) return;
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
    }
  }

  /** What sandbox to start; only the version is required. */
  public static final class Builder {
    private String clusterName = "sandbox";
    private int members = 3;
    private String version;
    private String serviceKind = ServiceSpec.PLAIN;
    private final Map<String, Map<String, String>> extraEnvByMember = new LinkedHashMap<>();
    private boolean tls;
    private ReleaseStore releases;

    private Builder() {}

    /** The cluster's name in the inventory; {@code sandbox} unless set. */
    public Builder cluster(String name) {
      this.clusterName = name;
      return this;
    }

    /** How many members, named m1..mN; 3 unless set. */
    public Builder members(int members) {
      this.members = members;
      return this;
    }

    /**
     * The etcd version every member starts with, one the release cache holds
     * (deploy/scripts/fetch-etcd.sh).
     */
    public Builder version(String version) {
      this.version = version;
      return this;
    }

    /**
     * Members run from kubeadm-like static-pod manifests by kubelet stand-ins, rather than as plain
     * processes.
     */
    public Builder staticPods() {
      this.serviceKind = ServiceSpec.STATIC_POD;
      return this;
    }

    /**
     * An extra etcd setting of one member, as its environment variable: {@code extraEnv("m3",
     * "ETCD_LOGGER", "capnslog")}.
     */
    public Builder extraEnv(String member, String name, String value) {
      extraEnvByMember.computeIfAbsent(member, m -> new LinkedHashMap<>()).put(name, value);
      return this;
    }

    /**
     * Clients reach etcd over https with a client certificate of the sandbox's CA ({@link
     * Sandbox#certificates()}).
     */
    public Builder tls() {
      this.tls = true;
      return this;
    }

    /** Where binaries come from; the release cache of deploy/scripts/fetch-etcd.sh unless set. */
    public Builder releases(ReleaseStore releases) {
      this.releases = releases;
      return this;
    }

    public EtcdSandboxExtension build() {
      return new EtcdSandboxExtension(this);
    }
  }
}
