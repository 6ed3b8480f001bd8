package io.etcdrunbooks.worker;

import io.etcdrunbooks.activities.etcd.EtcdActivitiesImpl;
import io.etcdrunbooks.activities.host.HostActivitiesImpl;
import io.etcdrunbooks.activities.release.LocalDirReleaseStore;
import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.InventoryLoader;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.inventory.TemporalInventoryRecords;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.workflows.activities.EtcdActivities;
import io.etcdrunbooks.workflows.activities.HostActivities;
import io.etcdrunbooks.workflows.activities.ReleaseActivities;
import io.etcdrunbooks.workflows.activities.TlsActivities;
import io.etcdrunbooks.workflows.backup.BackupClusterWorkflow;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.common.RunbookPayloads;
import io.etcdrunbooks.workflows.inventory.InventoryRecordKeeper;
import io.etcdrunbooks.workflows.inventory.InventoryRecordWorkflow;
import io.etcdrunbooks.workflows.maintenance.MaintenanceScheduleWorkflow;
import io.etcdrunbooks.workflows.maintenance.MaintenanceWorkflow;
import io.etcdrunbooks.workflows.migrate.MigrateV2ToV3Workflow;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.etcdrunbooks.workflows.model.VersionOffer;
import io.etcdrunbooks.workflows.recover.RecoverQuorumWorkflow;
import io.etcdrunbooks.workflows.replacemember.ReplaceMemberWorkflow;
import io.etcdrunbooks.workflows.restore.RestoreClusterWorkflow;
import io.etcdrunbooks.workflows.scale.ScaleClusterWorkflow;
import io.etcdrunbooks.workflows.tls.ReconfigureTlsWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeClusterWorkflow;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.testing.TestEnvironmentOptions;
import io.temporal.testing.TestWorkflowEnvironment;
import io.temporal.worker.Worker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * A real sandbox cluster (etcd processes, SSH hosts) and Temporal's test environment running the
 * worker's real workflows and activities against it. Time skipping is off: the activities wait on
 * real processes.
 */
final class SandboxRunbooks implements AutoCloseable {

  static final String TASK_QUEUE = "etcd-runbooks-test";

  final Sandbox sandbox;
  final InventorySource inventory;
  final EtcdActivitiesImpl etcd;
  final TestWorkflowEnvironment env;

  /** Releases the worker's binary source is made not to offer (empty: it offers all it has). */
  final java.util.Set<String> withheldReleases = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private final SshConnector ssh = new SshConnector();
  private final HostActivitiesImpl host;

  private SandboxRunbooks(Sandbox sandbox) {
    this(sandbox, UnaryOperator.identity(), UnaryOperator.identity(), UnaryOperator.identity());
  }

  /** The queue the worker's record workflows run on (runbooks.inventory-store: temporal). */
  static final String RECORDS_TASK_QUEUE = InventoryRecordWorkflow.taskQueue(TASK_QUEUE);

  private SandboxRunbooks(
      Sandbox sandbox,
      UnaryOperator<EtcdActivities> wrapEtcd,
      UnaryOperator<TlsActivities> wrapTls) {
    this(sandbox, wrapEtcd, wrapTls, UnaryOperator.identity());
  }

  /**
   * @param wrapEtcd wraps the etcd activities the worker registers (the runbook's own {@link #etcd}
   *     stays real)
   * @param wrapTls wraps the TLS activities the worker registers (to break a certificate mid-run)
   * @param wrapHost wraps the host activities the worker registers (to fail a restart's attempt)
   */
  private SandboxRunbooks(
      Sandbox sandbox,
      UnaryOperator<EtcdActivities> wrapEtcd,
      UnaryOperator<TlsActivities> wrapTls,
      UnaryOperator<HostActivities> wrapHost) {
    this(sandbox, wrapEtcd, wrapTls, wrapHost, false);
  }

  /**
   * @param recordsInTemporal runbooks record inventory changes in Temporal, the inventory file
   *     read-only ({@code runbooks.inventory-store: temporal}), not in the file
   */
  private SandboxRunbooks(
      Sandbox sandbox,
      UnaryOperator<EtcdActivities> wrapEtcd,
      UnaryOperator<TlsActivities> wrapTls,
      UnaryOperator<HostActivities> wrapHost,
      boolean recordsInTemporal) {
    this.sandbox = sandbox;
    this.env =
        TestWorkflowEnvironment.newInstance(
            TestEnvironmentOptions.newBuilder()
                .setWorkflowClientOptions(RunbookPayloads.clientOptions().build())
                .setUseTimeskipping(false)
                .build());
    this.inventory =
        recordsInTemporal
            ? new InventorySource(
                sandbox.inventoryFile(),
                new TemporalInventoryRecords(env.getWorkflowClient(), RECORDS_TASK_QUEUE),
                InventorySource.RECORD_MAX_AGE)
            : new InventorySource(sandbox.inventoryFile());
    ReleaseStore releases = releases();
    this.etcd = EtcdActivitiesImpl.stoppingFencedMembers(new ClusterTargets(inventory, ssh));
    env.newWorker(RECORDS_TASK_QUEUE)
        .registerWorkflowImplementationTypes(InventoryRecordKeeper.class);
    Worker worker = env.newWorker(TASK_QUEUE);
    this.host =
        new HostActivitiesImpl(new ClusterTargets(inventory, ssh), releases)
            .withRunLiveness(new TemporalRunLiveness(env.getWorkflowClient()));
    WorkerActivities real = WorkerActivities.of(inventory, etcd, ssh, releases);
    RunbookWorker.register(
        worker,
        new WorkerActivities(
            wrapEtcd.apply(etcd),
            wrapHost.apply(host),
            withholding(real.releases()),
            real.backup(),
            real.membership(),
            real.newMember(),
            real.inventory(),
            real.apiServer(),
            real.restore(),
            real.migration(),
            wrapTls.apply(real.tls()),
            real.maintenance(),
            real.recovery(),
            real.kubernetes(),
            real.downgrade(),
            real.drill()));
    env.start();
  }

  /** The worker's release activities without the {@link #withheldReleases}. */
  private ReleaseActivities withholding(ReleaseActivities releases) {
    return new ReleaseActivities() {
      @Override
      public java.util.List<String> availableVersions(ClusterRef cluster) {
        return releases.availableVersions(cluster).stream()
            .filter(v -> !withheldReleases.contains(v))
            .toList();
      }

      // the real offer, not the interface's default: a static-pod cluster's offer also names
      // its image repository and the tags it serves
      @Override
      public VersionOffer offer(ClusterRef cluster) {
        VersionOffer offer = releases.offer(cluster);
        return new VersionOffer(
            offer.versions().stream().filter(v -> !withheldReleases.contains(v)).toList(),
            offer.imageRepository(),
            offer.imageTemplate(),
            offer.repositoryTags());
      }

      @Override
      public java.util.List<String> flagsOf(String version) {
        return releases.flagsOf(version);
      }
    };
  }

  static ReleaseStore releases() {
    return new LocalDirReleaseStore(LocalDirReleaseStore.defaultDir());
  }

  static SandboxRunbooks start(
      Path dir, String version, Map<String, Map<String, String>> extraEnv) {
    return start(dir, version, extraEnv, ServiceSpec.PLAIN);
  }

  /**
   * @param serviceKind how the sandbox runs its members: {@code plain} or {@code static-pod}
   *     (kubelet stand-ins)
   */
  static SandboxRunbooks start(
      Path dir, String version, Map<String, Map<String, String>> extraEnv, String serviceKind) {
    return new SandboxRunbooks(
        Sandbox.create(
            new SandboxSpec(dir, "sandbox", 3, version, extraEnv, serviceKind), releases()));
  }

  /**
   * Three plain members on the version; runbooks record inventory changes in Temporal and never
   * write the inventory file ({@code runbooks.inventory-store: temporal}).
   */
  static SandboxRunbooks startRecordingInTemporal(Path dir, String version) {
    return new SandboxRunbooks(
        Sandbox.create(
            new SandboxSpec(dir, "sandbox", 3, version, Map.of(), ServiceSpec.PLAIN), releases()),
        UnaryOperator.identity(),
        UnaryOperator.identity(),
        UnaryOperator.identity(),
        true);
  }

  /** {@code members} plain members on the version. */
  static SandboxRunbooks startWithMembers(Path dir, String version, int members) {
    return new SandboxRunbooks(
        Sandbox.create(
            new SandboxSpec(dir, "sandbox", members, version, Map.of(), ServiceSpec.PLAIN),
            releases()));
  }

  /** Three plain http members, the worker's TLS activities wrapped (to break a certificate). */
  static SandboxRunbooks startOnHttp(
      Path dir, String version, UnaryOperator<TlsActivities> wrapTls) {
    return new SandboxRunbooks(
        Sandbox.create(
            new SandboxSpec(dir, "sandbox", 3, version, Map.of(), ServiceSpec.PLAIN), releases()),
        UnaryOperator.identity(),
        wrapTls);
  }

  /** Three plain members serving clients over https with a client certificate required. */
  static SandboxRunbooks startWithTls(Path dir, String version) {
    return startWithTls(dir, version, UnaryOperator.identity());
  }

  /** As {@link #startWithTls(Path, String)}, the worker's TLS activities wrapped. */
  static SandboxRunbooks startWithTls(
      Path dir, String version, UnaryOperator<TlsActivities> wrapTls) {
    return startWithTls(dir, version, ServiceSpec.PLAIN, wrapTls);
  }

  /** As {@link #startWithTls(Path, String)}, members run as {@code serviceKind}. */
  static SandboxRunbooks startWithTls(
      Path dir, String version, String serviceKind, UnaryOperator<TlsActivities> wrapTls) {
    return new SandboxRunbooks(
        Sandbox.create(
            new SandboxSpec(dir, "sandbox", 3, version, Map.of(), serviceKind).withTls(true),
            releases()),
        UnaryOperator.identity(),
        wrapTls);
  }

  /**
   * As {@link #startWithTls(Path, String)}, members run as {@code serviceKind} with kubeadm's peer
   * (on https peer URLs) and healthcheck client certificates beside their server certificates.
   */
  static SandboxRunbooks startWithKubeadmPki(Path dir, String version, String serviceKind) {
    return new SandboxRunbooks(
        Sandbox.create(
            new SandboxSpec(dir, "sandbox", 3, version, Map.of(), serviceKind).withKubeadmPki(),
            releases()),
        UnaryOperator.identity(),
        UnaryOperator.identity());
  }

  /** As {@link #startWithTls(Path, String)}, members run as {@code serviceKind} with more env. */
  static SandboxRunbooks startWithTls(
      Path dir, String version, String serviceKind, Map<String, Map<String, String>> extraEnv) {
    return new SandboxRunbooks(
        Sandbox.create(
            new SandboxSpec(dir, "sandbox", 3, version, extraEnv, serviceKind).withTls(true),
            releases()),
        UnaryOperator.identity(),
        UnaryOperator.identity());
  }

  /**
   * A 3-member plain sandbox whose worker registers {@code wrapHost} of the real host activities.
   */
  static SandboxRunbooks startWrappingHost(
      Path dir, String version, UnaryOperator<HostActivities> wrapHost) {
    return new SandboxRunbooks(
        Sandbox.create(
            new SandboxSpec(dir, "sandbox", 3, version, Map.of(), ServiceSpec.PLAIN), releases()),
        UnaryOperator.identity(),
        UnaryOperator.identity(),
        wrapHost);
  }

  WorkflowClient client() {
    return env.getWorkflowClient();
  }

  UpgradeClusterWorkflow upgradeStub() {
    return upgradeStub("sandbox");
  }

  /**
   * An upgrade of another cluster (one the inventory may not have) under that cluster's change id.
   */
  UpgradeClusterWorkflow upgradeStub(String cluster) {
    return client()
        .newWorkflowStub(
            UpgradeClusterWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(UpgradeClusterWorkflow.workflowId(cluster))
                .setTaskQueue(TASK_QUEUE)
                .build());
  }

  RestoreClusterWorkflow restoreStub() {
    return client()
        .newWorkflowStub(
            RestoreClusterWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(RestoreClusterWorkflow.workflowId("sandbox"))
                .setTaskQueue(TASK_QUEUE)
                .build());
  }

  MigrateV2ToV3Workflow migrateStub() {
    return client()
        .newWorkflowStub(
            MigrateV2ToV3Workflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(MigrateV2ToV3Workflow.workflowId("sandbox"))
                .setTaskQueue(TASK_QUEUE)
                .build());
  }

  MaintenanceWorkflow maintenanceStub() {
    return client()
        .newWorkflowStub(
            MaintenanceWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(MaintenanceWorkflow.workflowId("sandbox"))
                .setTaskQueue(TASK_QUEUE)
                .build());
  }

  RecoverQuorumWorkflow recoverStub() {
    return client()
        .newWorkflowStub(
            RecoverQuorumWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(RecoverQuorumWorkflow.workflowId("sandbox"))
                .setTaskQueue(TASK_QUEUE)
                .build());
  }

  ScaleClusterWorkflow scaleStub() {
    return client()
        .newWorkflowStub(
            ScaleClusterWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(ScaleClusterWorkflow.workflowId("sandbox"))
                .setTaskQueue(TASK_QUEUE)
                .build());
  }

  MaintenanceScheduleWorkflow maintenanceScheduleStub() {
    return client()
        .newWorkflowStub(
            MaintenanceScheduleWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(MaintenanceScheduleWorkflow.workflowId("sandbox"))
                .setTaskQueue(TASK_QUEUE)
                .build());
  }

  ReconfigureTlsWorkflow tlsStub() {
    return client()
        .newWorkflowStub(
            ReconfigureTlsWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(ReconfigureTlsWorkflow.workflowId("sandbox"))
                .setTaskQueue(TASK_QUEUE)
                .build());
  }

  BackupClusterWorkflow backupStub() {
    return client()
        .newWorkflowStub(
            BackupClusterWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(BackupClusterWorkflow.workflowId("sandbox"))
                .setTaskQueue(TASK_QUEUE)
                .build());
  }

  ReplaceMemberWorkflow replaceStub(String member) {
    return client()
        .newWorkflowStub(
            ReplaceMemberWorkflow.class,
            WorkflowOptions.newBuilder()
                .setWorkflowId(ReplaceMemberWorkflow.workflowId("sandbox"))
                .setTaskQueue(TASK_QUEUE)
                .build());
  }

  /** The cluster as the inventory file says now (runbooks may have changed it). */
  ClusterSpec cluster() {
    return inventory.get().cluster("sandbox");
  }

  /** What a dead machine leaves behind: the member's etcd SIGKILLed and its data dir gone. */
  void destroy(String member) throws java.io.IOException {
    MemberSpec spec = cluster().member(member);
    sandbox.kill(member);
    Path data = Path.of(spec.dataDir());
    if (java.nio.file.Files.exists(data)) {
      try (var paths = java.nio.file.Files.walk(data)) {
        for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList())
          java.nio.file.Files.delete(p);
      }
    }
  }

  /** Rewrites the sandbox cluster's inventory entry; the worker reads the file as it changes. */
  ClusterSpec editCluster(UnaryOperator<ClusterSpec> edit) {
    Inventory current = inventory.get();
    ClusterSpec edited = edit.apply(current.cluster("sandbox"));
    Map<String, ClusterSpec> clusters = new java.util.LinkedHashMap<>(current.clusters());
    clusters.put(edited.name(), edited);
    InventoryLoader.write(new Inventory(current.releases(), clusters), sandbox.inventoryFile());
    return edited;
  }

  /** The host activities the worker registers, to read a member's flags in tests. */
  HostActivitiesImpl host() {
    return host;
  }

  UpgradeRequest request(String target) {
    return UpgradeRequest.to(
        "sandbox", target, RunbookOptions.defaults().withMemberTimeoutSeconds(60));
  }

  /**
   * What an upgrade stopped after one member leaves behind: that member on the new version, the
   * rest on the old.
   */
  void upgradeOneMemberByHand(String member, String version) {
    MemberRef ref = new MemberRef("sandbox", member);
    host.stopMember(ref);
    host.installVersion(new HostActivities.InstallRequest("sandbox", member, version));
    host.startMember(ref);
    etcd.awaitMemberReady(new EtcdActivities.AwaitMemberRequest("sandbox", member, version, 60));
  }

  ClusterState state() {
    return etcd.discover(new ClusterRef("sandbox"));
  }

  /**
   * The member's installed version, read over the worker's SSH connector (which then keeps a
   * session to its host).
   */
  String installedVersion(String member) {
    return host.installedVersion(new MemberRef("sandbox", member));
  }

  /**
   * What a re-keyed or impersonated host looks like to the worker: the member's line in the
   * cluster's known_hosts file names another key (of the same type). Returns the file as it was,
   * for {@link #restoreKnownHosts}.
   */
  String distrustHostOf(String member) throws Exception {
    java.nio.file.Path file = java.nio.file.Path.of(cluster().ssh().knownHostsFile());
    String before = java.nio.file.Files.readString(file);
    String prefix =
        "[" + cluster().member(member).host() + "]:" + cluster().member(member).sshPort() + " ";
    java.security.KeyPairGenerator generator = java.security.KeyPairGenerator.getInstance("EC");
    generator.initialize(256);
    String otherKey =
        org.apache.sshd.common.config.keys.PublicKeyEntry.toString(
            generator.generateKeyPair().getPublic());
    String after =
        before
            .lines()
            .map(line -> line.startsWith(prefix) ? prefix + otherKey : line)
            .collect(java.util.stream.Collectors.joining("\n", "", "\n"));
    if (after.equals(before))
      throw new IllegalStateException("no line for " + prefix + "in " + file);
    java.nio.file.Files.writeString(file, after);
    return before;
  }

  void restoreKnownHosts(String content) throws java.io.IOException {
    java.nio.file.Files.writeString(
        java.nio.file.Path.of(cluster().ssh().knownHostsFile()), content);
  }

  @Override
  public void close() {
    env.close();
    ssh.close();
    sandbox.close();
  }

  /** Each member's etcd process id, by member name. */
  Map<String, Long> pids() {
    Map<String, Long> pids = new TreeMap<>();
    sandbox.cluster().members().forEach(m -> pids.put(m.name(), sandbox.pidOf(m.name())));
    return pids;
  }

  /** The files in the cluster's backup directory, none when it does not exist. */
  List<Path> backups() throws IOException {
    Path dir = Path.of(sandbox.cluster().backupDir());
    if (!Files.isDirectory(dir)) return List.of();
    try (var files = Files.list(dir)) {
      return files.toList();
    }
  }
}
