package io.etcdrunbooks.activities.backup;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.options.GetOption;
import io.etcdrunbooks.activities.etcd.EtcdCallException;
import io.etcdrunbooks.activities.etcd.EtcdClients;
import io.etcdrunbooks.activities.host.MemberHost;
import io.etcdrunbooks.activities.host.RootShell;
import io.etcdrunbooks.activities.host.SnapshotRestore;
import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.activities.ssh.ExecResult;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.ssh.SshException;
import io.etcdrunbooks.activities.ssh.SshTarget;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.ControlPlaneHost;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.workflows.activities.RestoreActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.temporal.failure.ApplicationFailure;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link RestoreActivities}: backups from the cluster's backup directory, restored on hosts over
 * SSH.
 */
public final class RestoreActivitiesImpl implements RestoreActivities {

  private static final Logger log = LoggerFactory.getLogger(RestoreActivitiesImpl.class);
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");
  private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(10);

  /**
   * As the Kubernetes documentation suggests: far more revisions than a cluster makes between a
   * backup and its restore.
   */
  static final long REVISION_BUMP = 1_000_000_000L;

  private final ClusterTargets targets;
  private final SshConnector ssh;
  private final ReleaseStore releases;
  private final BackupsAcrossTargets acrossTargets;

  public RestoreActivitiesImpl(ClusterTargets targets, ReleaseStore releases) {
    this.targets = targets;
    this.ssh = targets.ssh();
    this.releases = releases;
    this.acrossTargets = BackupsAcrossTargets.of(ssh);
  }

  @Override
  public BackupRecord checkBackup(CheckBackupRequest request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    acrossTargets.bringToWorker(spec, request.backupId(), request.takenOnMinor());
    return checkStored(spec, request.backupId(), request.takenOnMinor());
  }

  /**
   * Checks a backup already in {@code spec}'s backup directory: its SHA-256, its decryption and
   * etcd's own tool reading its recorded revision and hash.
   */
  BackupRecord checkStored(ClusterSpec spec, String backupId, String takenOnMinor) {
    BackupRecord record = find(spec, backupId, takenOnMinor);
    Path plaintext = decrypt(spec, record);
    try {
      SnapshotStatus status =
          SnapshotStatus.read(
              releases.binDir(record.etcdVersion()), record.etcdVersion(), plaintext);
      if (status.hash() != record.hash() || status.revision() != record.revision()) {
        throw corrupt(
            record,
            "etcd "
                + record.etcdVersion()
                + "'s tool reads revision "
                + status.revision()
                + " and hash "
                + status.hash()
                + " from it, its metadata says revision "
                + record.revision()
                + " and hash "
                + record.hash());
      }
      log.info(
          "backup {} of cluster {} checked: revision {}, hash {}, {} live keys",
          record.id(),
          spec.name(),
          record.revision(),
          record.hash(),
          record.liveKeys());
      return record;
    } catch (IOException | IllegalArgumentException e) {
      throw corrupt(
          record,
          "etcd "
              + record.etcdVersion()
              + "'s tool cannot read the decrypted snapshot: "
              + e.getMessage());
    } finally {
      deleteQuietly(plaintext);
    }
  }

  @Override
  public long lastSeenRevision(ClusterRef ref) {
    ClusterSpec spec = targets.cluster(ref.cluster());
    long highest = 0;
    try (EtcdClients clients = targets.clients(spec)) {
      for (MemberSpec m : spec.members()) {
        try {
          long revision =
              EtcdClients.await(
                      clients
                          .member(m.name())
                          .getKVClient()
                          .get(
                              ByteSequence.from(new byte[] {0}),
                              GetOption.builder()
                                  .withCountOnly(true)
                                  .withSerializable(true)
                                  .build()),
                      "revision of member '" + m.name() + "'")
                  .getHeader()
                  .getRevision();
          highest = Math.max(highest, revision);
        } catch (EtcdCallException e) {
          log.info(
              "cluster {}: member {} does not say its revision: {}",
              spec.name(),
              m.name(),
              e.getMessage());
        }
      }
    }
    return highest;
  }

  @Override
  public String keepDataDirAside(MemberRestoreRequest request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    MemberHost host = targets.host(spec, request.member());
    String data = quote(host.member().dataDir());
    String aside = quote(asidePath(host, request.restoreId()));
    String out =
        run(
                host,
                privileged(
                    spec,
                    host,
                    "if [ -e "
                        + aside
                        + " ]; then echo already; "
                        + "elif [ -d "
                        + data
                        + " ] && [ -n \"$(ls -A "
                        + data
                        + ")\" ]; then mv -T "
                        + data
                        + " "
                        + aside
                        + " && echo moved; "
                        + "else echo empty; fi"),
                "keep the data dir aside")
            .stdout()
            .strip();
    log.info(
        "{}: data dir {}",
        host.describe(),
        switch (out) {
          case "moved" -> "kept aside as " + asidePath(host, request.restoreId());
          case "already" -> "was kept aside already";
          default -> "held nothing to keep";
        });
    return out.equals("empty") ? "" : asidePath(host, request.restoreId());
  }

  @Override
  public long restoreMember(RestoreMemberRequest request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    MemberHost host =
        request.placement() == null
            ? targets.host(spec, request.member())
            : MemberHost.of(spec, memberSpec(request.placement()));
    String dataDir = host.member().dataDir();
    String marker = dataDir + ".restored-" + request.restoreId();
    String done =
        run(
                host,
                "if [ -f " + quote(marker) + " ]; then cat " + quote(marker) + "; fi",
                "look for an earlier restore")
            .stdout()
            .strip();
    if (!done.isEmpty()) {
      log.info("{}: restored already for {} (bump {})", host.describe(), request.restoreId(), done);
      return Long.parseLong(done);
    }
    boolean staticPod = ServiceSpec.STATIC_POD.equals(spec.service().kind());
    String version = targets.installer(spec).installedVersion(host);
    if (version.isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure(
          host.describe()
              + " has no etcd installed to restore with; install the"
              + " version first",
          "RestoreToolMissing");
    }
    String toolVersion =
        request.toolVersion() == null || request.toolVersion().isBlank()
            ? version
            : request.toolVersion();
    boolean etcdutl = EtcdVersion.parse(toolVersion).shipsEtcdutl();
    String toolName = etcdutl ? "etcdutl" : "etcdctl";
    // a static pod's host has etcd in an image, not its tools; a member whose own tool cannot raise
    // the revision gets a newer release's: either goes there for the restore only
    boolean uploadTool = staticPod || !toolVersion.equals(version);
    // checkBackup brought it here; a worker that did not run it fetches it the same way
    acrossTargets.bringToWorker(spec, request.backupId(), "");
    BackupRecord record = find(spec, request.backupId(), "");
    Path plaintext = decrypt(spec, record);
    // a private directory of the SSH user (mktemp -d: mode 0700): the decrypted snapshot holds
    // every Secret
    String staging =
        run(
                host,
                "mktemp -d /var/tmp/etcd-runbooks-restore.XXXXXX",
                "create a private staging directory")
            .stdout()
            .strip();
    try {
      Heartbeats.beat("uploading backup " + record.id() + " to " + request.member());
      ssh.upload(
          host.target(),
          plaintext,
          staging + "/snapshot.db",
          bytes ->
              Heartbeats.beat(
                  "uploading backup to " + request.member() + ": " + (bytes >> 20) + " MB"));
      String tool =
          uploadTool
              ? staging + "/" + toolName
              : host.member().installDir() + "/current/" + toolName;
      if (uploadTool) {
        ssh.upload(host.target(), releases.binDir(toolVersion).resolve(toolName), tool);
        run(host, "chmod 700 " + quote(tool), "make " + tool + " executable");
      }
      boolean bump =
          etcdutl
              && run(
                      host,
                      quote(tool)
                          + " snapshot restore --help 2>&1 | grep -q -- --bump-revision && echo yes || true",
                      "ask " + tool + " for --bump-revision")
                  .stdout()
                  .contains("yes");
      String script =
          "set -e\n"
              // an empty data dir (a new host's, made when it was prepared) is taken as it is; one
              // holding anything now is what an interrupted restore left: the old one is aside
              // already
              + "if [ -d "
              + quote(dataDir)
              + " ] && [ -z \"$(ls -A "
              + quote(dataDir)
              + ")\" ]; then rmdir "
              + quote(dataDir)
              + "; fi\n"
              + "if [ -e "
              + quote(dataDir)
              + " ]; then [ -e "
              + quote(asidePath(host, request.restoreId()))
              + " ] || { echo "
              + quote(
                  "the data dir "
                      + dataDir
                      + " is not empty and was not kept aside; run keepDataDirAside first")
              + " >&2; exit 3; };"
              + " rm -rf "
              + quote(dataDir)
              + "; fi\n"
              + SnapshotRestore.command(
                  tool,
                  staging + "/snapshot.db",
                  false,
                  host.member(),
                  request.initialCluster(),
                  request.clusterToken(),
                  dataDir,
                  bump ? REVISION_BUMP : 0)
              + "chmod 700 "
              + quote(dataDir)
              + "\n"
              + SnapshotRestore.owner(ssh, spec, host, dataDir)
              + "echo "
              + (bump ? REVISION_BUMP : 0)
              + " > "
              + quote(marker)
              + "\n";
      ExecResult result = ssh.exec(host.target(), privileged(spec, host, script), COMMAND_TIMEOUT);
      if (!result.ok()) {
        throw ApplicationFailure.newNonRetryableFailure(
            "restoring backup "
                + record.id()
                + " on "
                + host.describe()
                + " with "
                + toolName
                + " (etcd "
                + toolVersion
                + ") failed (exit "
                + result.exitCode()
                + "): "
                + tail(result.stderr() + result.stdout())
                + "\nnext step: fix the cause, then run the restore again; the old data dir stays at "
                + asidePath(host, request.restoreId()),
            FailureType.RestoreFailed.name());
      }
      log.info(
          "{}: backup {} restored with {} (etcd {}){}",
          host.describe(),
          record.id(),
          toolName,
          toolVersion,
          bump ? ", revision bumped by " + REVISION_BUMP : "");
      return bump ? REVISION_BUMP : 0;
    } catch (SshException e) {
      throw ApplicationFailure.newFailureWithCause(
          "cannot restore on " + host.describe() + ": " + e.getMessage(), "HostUnreachable", e);
    } finally {
      deleteQuietly(plaintext);
      try {
        ssh.exec(host.target(), "rm -rf " + quote(staging), Duration.ofSeconds(30));
      } catch (RuntimeException e) {
        log.warn(
            "{}: the staging directory {} with the decrypted snapshot could not be removed: {}",
            host.describe(),
            staging,
            e.getMessage());
      }
    }
  }

  @Override
  public List<String> newHostProblems(NewHostRequest request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    MemberHost host = MemberHost.of(spec, memberSpec(request.member()));
    List<String> problems = new ArrayList<>();
    try {
      if (targets.service(spec).isRunning(host)) {
        problems.add(
            host.describe()
                + " already runs etcd ("
                + spec.service().kind()
                + "): a restore onto new hosts needs hosts that run none; stop it or choose"
                + " another host");
      }
      String data = quote(host.member().dataDir());
      String out =
          run(
                  host,
                  privileged(
                      spec,
                      host,
                      "if [ -d "
                          + data
                          + " ] && [ -n \"$(ls -A "
                          + data
                          + ")\" ]; then echo data; fi"),
                  "look at the data dir")
              .stdout()
              .strip();
      if (out.equals("data")) {
        problems.add(
            host.describe()
                + ": its data dir "
                + host.member().dataDir()
                + " is not empty; move it away (or choose another dataDir) and run again");
      }
    } catch (SshException e) {
      throw ApplicationFailure.newFailureWithCause(
          "cannot look at " + host.describe() + ": " + e.getMessage(), "HostUnreachable", e);
    }
    return problems;
  }

  @Override
  public List<String> encryptionConfigProblems(EncryptionConfigRequest request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    BackupRecord record = find(spec, request.backupId(), "");
    if (record.encryptionKeys().isEmpty()) return List.of();
    List<String> problems = new ArrayList<>();
    for (ControlPlaneHost host : EncryptionConfigs.hosts(spec)) {
      List<String> missing;
      try {
        missing = missingKeys(spec, host, record);
      } catch (SshException e) {
        problems.add(
            "%s: its EncryptionConfiguration %s cannot be read: %s"
                .formatted(host.name(), host.encryptionConfigPath(), e.getMessage()));
        continue;
      }
      if (missing.isEmpty()) continue;
      if (request.putBack() && !record.encryptionConfigFile().isEmpty()) {
        log.info(
            "{}: {} lacks {}; the backup's copy goes back before the apiserver starts",
            host.name(),
            host.encryptionConfigPath(),
            missing);
        continue;
      }
      problems.add(
          ("%s: the kube-apiserver's EncryptionConfiguration %s lacks the keys %s that backup %s's"
                  + " Secrets were written with (it has %s): the restored Secrets could not be read."
                  + " Put those keys back in the file, or restore with putBackEncryptionConfig%s")
              .formatted(
                  host.name(),
                  host.encryptionConfigPath(),
                  missing,
                  record.id(),
                  currentKeys(spec, host),
                  record.encryptionConfigFile().isEmpty()
                      ? " once a backup keeps the file (backup.keepEncryptionConfig; this one did not)"
                      : " to put the backup's copy back"));
    }
    return problems;
  }

  @Override
  public boolean putBackEncryptionConfig(PutBackEncryptionConfigRequest request) {
    ClusterSpec spec = targets.cluster(request.cluster());
    BackupRecord record = find(spec, request.backupId(), "");
    ControlPlaneHost host =
        EncryptionConfigs.hosts(spec).stream()
            .filter(h -> h.name().equals(request.host()))
            .findFirst()
            .orElse(null);
    if (host == null || record.encryptionConfigFile().isEmpty()) return false;
    if (missingKeys(spec, host, record).isEmpty()) return false;
    SshTarget target = SshTarget.of(spec, host);
    String path = host.encryptionConfigPath();
    String before = path + ".before-restore-" + request.restoreId();
    ssh.writeFile(target, path + ".etcd-runbooks.tmp", EncryptionConfigs.kept(spec, record));
    ExecResult moved =
        ssh.exec(
            target,
            "set -e; if [ -f %1$s ] && [ ! -e %2$s ]; then cp -p %1$s %2$s; fi; chmod 600 %3$s; mv -f %3$s %1$s"
                .formatted(quote(path), quote(before), quote(path + ".etcd-runbooks.tmp")),
            Duration.ofSeconds(30));
    if (!moved.ok()) {
      throw ApplicationFailure.newFailure(
          "%s: cannot put backup %s's EncryptionConfiguration at %s: %s"
              .formatted(host.name(), record.id(), path, tail(moved.stderr())),
          "HostCommandFailed");
    }
    log.info(
        "{}: backup {}'s EncryptionConfiguration put back at {} (the one there kept as {})",
        host.name(),
        record.id(),
        path,
        before);
    return true;
  }

  private List<String> missingKeys(ClusterSpec spec, ControlPlaneHost host, BackupRecord record) {
    List<String> current = currentKeys(spec, host);
    return record.encryptionKeys().stream().filter(k -> !current.contains(k)).toList();
  }

  private List<String> currentKeys(ClusterSpec spec, ControlPlaneHost host) {
    return EncryptionConfigs.keyNames(
        ssh.readFile(SshTarget.of(spec, host), host.encryptionConfigPath()), host);
  }

  private static MemberSpec memberSpec(MemberPlacement p) {
    return new MemberSpec(
        p.name(),
        p.host(),
        p.sshPort(),
        p.clientUrl(),
        p.peerUrl(),
        p.dataDir(),
        p.installDir(),
        p.serviceDir());
  }

  /**
   * Static pods' and systemd units' files belong to root: their commands go through {@code sudo -n}
   * when the SSH user is not root. A plain member's belong to the SSH user.
   */
  private static String privileged(ClusterSpec spec, MemberHost host, String script) {
    if (ServiceSpec.PLAIN.equals(spec.service().kind())) return script;
    return RootShell.asRoot(spec.service(), host.target().user(), script);
  }

  /**
   * The backup with this id, or the newest one whose file still has its recorded size; checked
   * against the cluster.
   */
  static BackupRecord find(ClusterSpec spec, String backupId, String takenOnMinor) {
    Path dir = Path.of(spec.backupDir());
    try {
      if (backupId == null || backupId.isBlank() || backupId.equals("latest")) {
        Map<String, BackupRecord> kept = StoredBackups.keptRecords(spec, dir);
        BackupRecord newest =
            kept.values().stream()
                .filter(r -> StoredBackups.isWhole(dir, r))
                .filter(
                    r ->
                        takenOnMinor == null
                            || takenOnMinor.isBlank()
                            || r.etcdVersion().startsWith(takenOnMinor + "."))
                .max(Comparator.comparing(BackupRecord::takenAt))
                .orElseThrow(
                    () ->
                        FailureType.BackupCorrupt.nonRetryable(
                            "cluster '"
                                + spec.name()
                                + "' has no kept backup in "
                                + dir
                                + " whose file is whole"
                                + (takenOnMinor == null || takenOnMinor.isBlank()
                                    ? ""
                                    : " taken on etcd " + takenOnMinor)
                                + " (backups there: "
                                + kept.keySet()
                                + "); name a backup explicitly, or copy one there"));
        return checked(spec, dir, newest);
      }
      if (!ID.matcher(backupId).matches()) {
        throw FailureType.InvalidRequest.nonRetryable(
            "backup id '"
                + backupId
                + "' must be a plain file name, as the backup runbook makes them");
      }
      Path metadata = dir.resolve(backupId + ".json");
      if (!Files.exists(metadata)) {
        throw FailureType.InvalidRequest.nonRetryable(
            "cluster '"
                + spec.name()
                + "' has no backup '"
                + backupId
                + "' in "
                + dir
                + "; it has "
                + StoredBackups.keptRecords(spec, dir).keySet());
      }
      BackupRecord record = StoredBackups.JSON.readValue(metadata.toFile(), BackupRecord.class);
      if (!spec.name().equals(record.cluster())) {
        throw FailureType.InvalidRequest.nonRetryable(
            "backup '"
                + backupId
                + "' in "
                + dir
                + " is a backup of cluster '"
                + record.cluster()
                + "', not of '"
                + spec.name()
                + "': restoring it would give this cluster another cluster's data");
      }
      return checked(spec, dir, record);
    } catch (IOException e) {
      throw FailureType.BackupCorrupt.nonRetryable(
          "cannot read the backups of cluster '"
              + spec.name()
              + "' in "
              + dir
              + ": "
              + e.getMessage());
    }
  }

  /** The record when its file is there with its recorded SHA-256. */
  private static BackupRecord checked(ClusterSpec spec, Path dir, BackupRecord record)
      throws IOException {
    Path file = StoredBackups.storedFile(dir, record);
    if (!Files.isRegularFile(file)) throw corrupt(record, "its file " + file + " is gone");
    long size = Files.size(file);
    String sha256 = StoredBackups.sha256(file);
    if (!sha256.equals(record.sha256())) {
      throw corrupt(
          record,
          file
              + " has "
              + size
              + " bytes and SHA-256 "
              + sha256
              + ", its metadata says "
              + record.sizeBytes()
              + " bytes and "
              + record.sha256()
              + (size < record.sizeBytes() ? ": the file is truncated" : ": the file changed"));
    }
    return record;
  }

  /** The backup's snapshot as a private plaintext file on the worker; the caller deletes it. */
  static Path decrypt(ClusterSpec spec, BackupRecord record) {
    Path dir = Path.of(spec.backupDir());
    Path stored = StoredBackups.storedFile(dir, record);
    try {
      Path plaintext =
          Files.createTempFile(dir, "." + record.id() + ".restore-", ".db", StoredBackups.PRIVATE);
      if (!record.encrypted()) {
        Files.copy(stored, plaintext, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        return plaintext;
      }
      BackupKey key = StoredBackups.backupKey(spec);
      if (!key.id().equals(record.keyId())) {
        deleteQuietly(plaintext);
        throw FailureType.BackupKeyUnusable.nonRetryable(
            "backup "
                + record.id()
                + " is encrypted with key '"
                + record.keyId()
                + "', but cluster '"
                + spec.name()
                + "' names key '"
                + key.id()
                + "' in the inventory; set backup.keyFile and"
                + " backup.keyId to that key to restore it");
      }
      try (InputStream in = new BufferedInputStream(Files.newInputStream(stored));
          OutputStream out =
              new BufferedOutputStream(
                  new ProgressOutputStream(
                      Files.newOutputStream(plaintext), "decrypting backup " + record.id()))) {
        new SnapshotCipher(key).decrypt(in, out);
      } catch (SnapshotDecryptionException e) {
        deleteQuietly(plaintext);
        throw FailureType.BackupKeyUnusable.nonRetryable(
            "backup "
                + record.id()
                + " does not decrypt with the key in "
                + spec.backupSettings().keyFile()
                + " (id '"
                + key.id()
                + "'): "
                + e.getMessage());
      }
      return plaintext;
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot decrypt backup "
              + record.id()
              + " of cluster '"
              + spec.name()
              + "': "
              + e.getMessage(),
          e);
    }
  }

  private static String asidePath(MemberHost host, String restoreId) {
    return host.member().dataDir() + ".before-restore-" + restoreId;
  }

  private ExecResult run(MemberHost host, String script, String what) {
    try {
      ExecResult result = ssh.exec(host.target(), script, COMMAND_TIMEOUT);
      if (!result.ok()) {
        throw ApplicationFailure.newFailure(
            "cannot "
                + what
                + " on "
                + host.describe()
                + " (exit "
                + result.exitCode()
                + "): "
                + tail(result.stderr()),
            "HostCommandFailed");
      }
      return result;
    } catch (SshException e) {
      throw ApplicationFailure.newFailureWithCause(
          "cannot " + what + " on " + host.describe() + ": " + e.getMessage(),
          "HostUnreachable",
          e);
    }
  }

  private static ApplicationFailure corrupt(BackupRecord record, String why) {
    return FailureType.BackupCorrupt.nonRetryable(
        "backup "
            + record.id()
            + " of cluster '"
            + record.cluster()
            + "' cannot be restored: "
            + why
            + ". Choose another backup (restore input backupId)");
  }

  private static String tail(String text) {
    String t = text.strip();
    return t.length() <= 2000 ? t : "..." + t.substring(t.length() - 2000);
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      log.warn("cannot delete {}: {}", file, e.getMessage());
    }
  }
}
