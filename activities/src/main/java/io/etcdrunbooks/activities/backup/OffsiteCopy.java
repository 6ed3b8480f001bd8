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
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A kept backup copied to the cluster's off-site host over SFTP: the stored (encrypted) file under
 * a temporary name, its SHA-256 checked on the host, then renamed, then the metadata. The key never
 * goes there.
 */
final class OffsiteCopy {

  private static final Logger log = LoggerFactory.getLogger(OffsiteCopy.class);
  private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(5);

  private final SshConnector ssh;

  OffsiteCopy(SshConnector ssh) {
    this.ssh = ssh;
  }

  /** "host:path" of the copy. */
  String copy(ClusterSpec spec, BackupRecord record, Path stored, Path metadata) {
    CopyTo to = spec.backupSettings().copyTo();
    SshTarget target = target(spec);
    String dir = to.dir().replaceAll("/+$", "");
    String file = dir + "/" + stored.getFileName();
    String where = target.address() + ":" + file;
    try {
      if (record.sha256().equals(remoteSha256(target, file))) {
        log.info(
            "backup {} of cluster {}: off-site copy {} is there already",
            record.id(),
            spec.name(),
            where);
      } else {
        String part = dir + "/." + stored.getFileName() + ".part";
        run(target, "mkdir -p " + quote(dir) + " && rm -f " + quote(part), "create " + dir);
        ssh.upload(
            target,
            stored,
            part,
            bytes ->
                Heartbeats.beat(
                    "copying backup " + record.id() + " off-site: " + (bytes >> 20) + " MB"));
        String copied = remoteSha256(target, part);
        if (!record.sha256().equals(copied)) {
          run(target, "rm -f " + quote(part), "remove the bad copy");
          throw ApplicationFailure.newFailure(
              "the off-site copy "
                  + where
                  + " of backup "
                  + record.id()
                  + " has SHA-256 "
                  + copied
                  + ", not "
                  + record.sha256()
                  + "; it was removed and is copied again",
              "OffsiteCopyMismatch");
        }
        run(
            target,
            "chmod 600 " + quote(part) + " && mv -f " + quote(part) + " " + quote(file),
            "put " + file + " in place");
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
   * When the newest backup of the cluster whose record is on the off-site host was taken; records
   * are copied there only after their file's SHA-256 check. Empty when there is none.
   */
  Optional<Instant> newestTakenAt(ClusterSpec spec) {
    String dir = spec.backupSettings().copyTo().dir().replaceAll("/+$", "");
    String out =
        run(
                target(spec),
                "cd "
                    + quote(dir)
                    + " 2>/dev/null || exit 0; grep -H -e '\"cluster\"' -e '\"takenAt\"' -- *.json"
                    + " 2>/dev/null || true",
                "list the backups in " + dir)
            .stdout();
    Map<String, String> clusterOf = new HashMap<>();
    Map<String, String> takenAtOf = new HashMap<>();
    for (String line : out.split("\n")) {
      Matcher m = RECORD_FIELD.matcher(line);
      if (!m.find()) continue;
      (m.group(2).equals("cluster") ? clusterOf : takenAtOf).put(m.group(1), m.group(3));
    }
    return takenAtOf.entrySet().stream()
        .filter(e -> spec.name().equals(clusterOf.get(e.getKey())))
        .map(e -> Instant.parse(e.getValue()))
        .max(Comparator.naturalOrder());
  }

  /** A line of {@code grep -H}: file name, then a field of a backup record. */
  private static final Pattern RECORD_FIELD =
      Pattern.compile("^([^:]+\\.json):\\s*\"(cluster|takenAt)\"\\s*:\\s*\"([^\"]*)\"");

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
