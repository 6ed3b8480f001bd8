package io.etcdrunbooks.activities.backup;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.ssh.ExecResult;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.ssh.SshException;
import io.etcdrunbooks.activities.ssh.SshTarget;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.inventory.BackupSpec.CopyTo;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A kept backup copied to the cluster's off-site host over SFTP: the stored (encrypted) file under
 * a temporary name, its SHA-256 checked on the host, then renamed, then the metadata. The key never
 * goes there.
 */
final class OffsiteCopy implements RemoteTarget {

  private static final Logger log = LoggerFactory.getLogger(OffsiteCopy.class);
  private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(5);

  private final SshConnector ssh;

  OffsiteCopy(SshConnector ssh) {
    this.ssh = ssh;
  }

  private static SshTarget target(ClusterSpec spec) {
    CopyTo to = spec.backupSettings().copyTo();
    int port =
        to.sshPort() != 0
            ? to.sshPort()
            : spec.ssh().port() != 0 ? spec.ssh().port() : SshTarget.DEFAULT_PORT;
    return new SshTarget(
        to.host(),
        port,
        spec.ssh().user(),
        spec.ssh().privateKeyFile(),
        spec.ssh().knownHostsFile());
  }

  private static String dir(ClusterSpec spec) {
    return spec.backupSettings().copyTo().dir().replaceAll("/+$", "");
  }

  /** "host:path" of the copy. */
  String copy(ClusterSpec spec, BackupRecord record, Path stored, Path metadata) {
    CopyTo to = spec.backupSettings().copyTo();
    SshTarget target = target(spec);
    String dir = dir(spec);
    String file = dir + "/" + stored.getFileName();
    String where = target.address() + ":" + file;
    try {
      putChecked(target, dir, stored, record.sha256(), record);
      Optional<String> config = EncryptionConfigs.fileName(record);
      if (config.isPresent()) {
        Path kept = stored.resolveSibling(config.get());
        putChecked(target, dir, kept, EncryptionConfigs.expectedSha256(record, kept), record);
      }
      ssh.upload(target, metadata, dir + "/" + metadata.getFileName());
      log.info("backup {} of cluster {} copied off-site to {}", record.id(), spec.name(), where);
      return to.host() + ":" + file;
    } catch (SshException e) {
      throw ApplicationFailure.newFailureWithCause(
          "cannot copy backup "
              + record.id()
              + " of cluster '"
              + spec.name()
              + "' to "
              + where
              + ": "
              + e.getMessage(),
          e instanceof io.etcdrunbooks.activities.ssh.HostKeyRejectedException
              ? FailureType.InvalidRequest.name()
              : "HostUnreachable",
          e);
    }
  }

  /**
   * {@code local} in {@code dir} on the host: under a temporary name, its SHA-256 checked there,
   * then renamed; left alone when the host has it with that SHA-256 already.
   */
  private void putChecked(
      SshTarget target, String dir, Path local, String sha256, BackupRecord record) {
    String file = dir + "/" + local.getFileName();
    String where = target.address() + ":" + file;
    if (sha256.equals(remoteSha256(target, file))) {
      log.info(
          "backup {} of cluster {}: off-site copy {} is there already",
          record.id(),
          record.cluster(),
          where);
    } else {
      String part = dir + "/." + local.getFileName() + ".part";
      run(target, "mkdir -p " + quote(dir) + " && rm -f " + quote(part), "create " + dir);
      ssh.upload(
          target,
          local,
          part,
          bytes ->
              Heartbeats.beat(
                  "copying backup " + record.id() + " off-site: " + (bytes >> 20) + " MB"));
      String copied = remoteSha256(target, part);
      if (!sha256.equals(copied)) {
        run(target, "rm -f " + quote(part), "remove the bad copy");
        throw ApplicationFailure.newFailure(
            "the off-site copy "
                + where
                + " of backup "
                + record.id()
                + " has SHA-256 "
                + copied
                + ", not "
                + sha256
                + "; it was removed and is copied again",
            "OffsiteCopyMismatch");
      }
      run(
          target,
          "chmod 600 " + quote(part) + " && mv -f " + quote(part) + " " + quote(file),
          "put " + file + " in place");
    }
  }

  /**
   * The cluster's backups in the off-site directory: each record ({@code <id>.json} naming this
   * cluster) whose file is there with its recorded size is verified. Files of other clusters and
   * anything else in the directory are not ours and never listed.
   */
  @Override
  public List<RemoteBackup> list(ClusterSpec spec) {
    SshTarget target = target(spec);
    String dir = dir(spec);
    String script =
        "cd "
            + quote(dir)
            + " 2>/dev/null || exit 0; for f in *.json; do [ -f \"$f\" ] || continue;"
            + " printf '%s\\n' \"=== $f\"; cat \"$f\"; printf '\\n'; done;"
            + " printf '%s\\n' '=== sizes';"
            + " for f in *.db *.db.enc; do [ -f \"$f\" ] && printf '%s %s\\n' \"$(wc -c < \"$f\")\" \"$f\"; done; true";
    try {
      String out = run(target, script, "list the backups in " + dir).stdout();
      return RemoteBackup.parseListing(spec, out, target.address() + ":" + dir);
    } catch (SshException e) {
      throw unreachable(spec, target.address() + ":" + dir, "list backups in", e);
    }
  }

  @Override
  public boolean configuredFor(ClusterSpec spec) {
    return spec.backupSettings().copyTo() != null;
  }

  @Override
  public String where(ClusterSpec spec) {
    return target(spec).address() + ":" + dir(spec);
  }

  @Override
  public void delete(ClusterSpec spec, RemoteBackup backup) {
    BackupRecord record = backup.record();
    SshTarget target = target(spec);
    String dir = dir(spec);
    String file = dir + "/" + Path.of(record.path()).getFileName();
    try {
      String config =
          EncryptionConfigs.fileName(record).map(n -> " " + quote(dir + "/" + n)).orElse("");
      run(
          target,
          "rm -f " + quote(file) + config + " && rm -f " + quote(dir + "/" + record.id() + ".json"),
          "delete backup " + record.id());
    } catch (SshException e) {
      throw unreachable(spec, target.address() + ":" + dir, "delete backup in", e);
    }
  }

  /**
   * Brings a backup of ours from the off-site directory into {@code localDir}: the file under a
   * temporary name, renamed once its SHA-256 is the record's, then the record. Returns false when
   * the off-site directory holds no backup with this id.
   */
  @Override
  public boolean fetch(ClusterSpec spec, String id, Path localDir) {
    RemoteBackup found =
        list(spec).stream().filter(b -> b.record().id().equals(id)).findFirst().orElse(null);
    if (found == null) return false;
    SshTarget target = target(spec);
    String dir = dir(spec);
    BackupRecord record = found.record();
    String fileName = Path.of(record.path()).getFileName().toString();
    String where = target.address() + ":" + dir + "/" + fileName;
    Optional<String> config = EncryptionConfigs.fileName(record);
    try {
      Files.createDirectories(localDir);
      Path part = localDir.resolve(fileName + ".download.part");
      Files.deleteIfExists(part);
      Files.createFile(part, StoredBackups.PRIVATE);
      ssh.download(
          target,
          dir + "/" + fileName,
          part,
          bytes ->
              Heartbeats.beat("downloading backup " + id + " off-site: " + (bytes >> 20) + " MB"));
      String sha256 = StoredBackups.sha256(part);
      if (!sha256.equals(record.sha256())) {
        Files.deleteIfExists(part);
        throw FailureType.BackupCorrupt.nonRetryable(
            "backup "
                + id
                + " of cluster '"
                + spec.name()
                + "' in "
                + where
                + " has SHA-256 "
                + sha256
                + ", its record says "
                + record.sha256()
                + "; nothing was restored from it");
      }
      if (config.isPresent()) {
        try {
          fetchChecked(spec, target, dir, config.get(), record, localDir);
        } catch (RuntimeException | IOException e) {
          Files.deleteIfExists(part);
          throw e;
        }
      }
      Files.move(part, localDir.resolve(fileName), StandardCopyOption.ATOMIC_MOVE);
      Path tmp = localDir.resolve(id + ".json.download.part");
      Files.deleteIfExists(tmp);
      Files.createFile(tmp, StoredBackups.PRIVATE);
      Files.writeString(tmp, found.json());
      Files.move(tmp, localDir.resolve(id + ".json"), StandardCopyOption.ATOMIC_MOVE);
      log.info("backup {} of cluster {} downloaded from {}", id, spec.name(), where);
      return true;
    } catch (SshException e) {
      throw unreachable(spec, where, "download backup " + id + " from", e);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "backup "
              + id
              + " of cluster '"
              + spec.name()
              + "' into "
              + localDir
              + ": "
              + e.getMessage(),
          e);
    }
  }

  /**
   * The backup's kept EncryptionConfiguration into {@code localDir} the same way: under a temporary
   * name, renamed once its SHA-256 is the record's (a record written before that was recorded names
   * none: the file's own authentication tag is checked when it is decrypted).
   */
  private void fetchChecked(
      ClusterSpec spec,
      SshTarget target,
      String dir,
      String fileName,
      BackupRecord record,
      Path localDir)
      throws IOException {
    String where = target.address() + ":" + dir + "/" + fileName;
    if (remoteSha256(target, dir + "/" + fileName).isEmpty()) {
      throw EncryptionConfigs.missingOn(spec, record, where);
    }
    Path part = localDir.resolve(fileName + ".download.part");
    Files.deleteIfExists(part);
    Files.createFile(part, StoredBackups.PRIVATE);
    ssh.download(target, dir + "/" + fileName, part, bytes -> {});
    EncryptionConfigs.keepDownloaded(spec, record, part, localDir.resolve(fileName), where);
  }

  private static ApplicationFailure unreachable(
      ClusterSpec spec, String where, String what, SshException e) {
    return ApplicationFailure.newFailureWithCause(
        "cluster '" + spec.name() + "': cannot " + what + " " + where + ": " + e.getMessage(),
        e instanceof io.etcdrunbooks.activities.ssh.HostKeyRejectedException
            ? FailureType.InvalidRequest.name()
            : "HostUnreachable",
        e);
  }

  private String remoteSha256(SshTarget target, String file) {
    String out =
        run(
                target,
                "if [ -f " + quote(file) + " ]; then sha256sum " + quote(file) + "; fi",
                "checksum " + file)
            .stdout()
            .strip();
    return out.isEmpty() ? "" : out.split("\\s+")[0];
  }

  private ExecResult run(SshTarget target, String command, String what) {
    return ssh.exec(target, command, COMMAND_TIMEOUT).orThrow(target, what);
  }
}
