package io.etcdrunbooks.activities.backup;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * What etcd's own tool reads from a snapshot file: {@code etcdutl snapshot status -w json} from 3.5
 * on, {@code ETCDCTL_API=3 etcdctl snapshot status -w json} before.
 *
 * @param hash the tool's hash over every bucket of the file
 * @param revision the highest revision stored in the file's key bucket
 * @param totalKey up to 3.5: entries in all of the file's buckets, every stored revision of every
 *     key (not compacted yet, tombstones included) plus a few bookkeeping entries (meta, members,
 *     cluster version, ...); from 3.6 on (etcdutl's v3_snapshot.go): the keys alive at {@code
 *     revision}. Never less than the live keys at {@code revision}
 * @param totalSize bolt database size
 */
record SnapshotStatus(long hash, long revision, long totalKey, long totalSize) {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration TOOL_TIMEOUT = Duration.ofMinutes(5);

  static SnapshotStatus read(Path binDir, String etcdVersion, Path file) throws IOException {
    boolean etcdutl = EtcdVersion.parse(etcdVersion).shipsEtcdutl();
    Path tool = binDir.resolve(etcdutl ? "etcdutl" : "etcdctl");
    if (!Files.isExecutable(tool))
      throw new IOException(
          tool + " is missing; it is needed to verify " + etcdVersion + " snapshots");
    List<String> command =
        new ArrayList<>(
            List.of(tool.toString(), "snapshot", "status", file.toString(), "-w", "json"));
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().put("ETCDCTL_API", "3");
    // output to files, so that waiting for the tool stays bounded even when it hangs
    Path stdout = Files.createTempFile("snapshot-status", ".json");
    Path stderr = Files.createTempFile("snapshot-status", ".err");
    builder.redirectOutput(stdout.toFile());
    builder.redirectError(stderr.toFile());
    try {
      Process process = builder.start();
      if (!process.waitFor(TOOL_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new IOException(
            String.join(" ", command)
                + " did not finish within "
                + TOOL_TIMEOUT.toMinutes()
                + " min");
      }
      if (process.exitValue() != 0) {
        throw new IOException(
            String.join(" ", command)
                + " failed (exit "
                + process.exitValue()
                + "): "
                + Files.readString(stderr, StandardCharsets.UTF_8).strip());
      }
      JsonNode json = JSON.readTree(stdout.toFile());
      for (String field : List.of("hash", "revision", "totalKey", "totalSize")) {
        if (!json.hasNonNull(field))
          throw new IOException(String.join(" ", command) + " printed no " + field + ": " + json);
      }
      return new SnapshotStatus(
          json.get("hash").asLong(),
          json.get("revision").asLong(),
          json.get("totalKey").asLong(),
          json.get("totalSize").asLong());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while running " + tool, e);
    } finally {
      Files.deleteIfExists(stdout);
      Files.deleteIfExists(stderr);
    }
  }
}
