package io.etcdrunbooks.activities.backup;

import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.workflows.model.BackupRecord;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One backup of a cluster as an off-site target holds it: its record (and the record's JSON as
 * stored), and whether its file is there with the recorded size.
 *
 * @param record the backup's record, naming this cluster
 * @param json the record as stored there, written as is when the backup is brought back
 * @param verified the file is there with the record's size
 */
record RemoteBackup(BackupRecord record, String json, boolean verified) {

  private static final Logger log = LoggerFactory.getLogger(RemoteBackup.class);

  Instant takenAt() {
    return Instant.parse(record.takenAt());
  }

  String fileName() {
    return Path.of(record.path()).getFileName().toString();
  }

  /**
   * A record read from {@code where} when it is one of this cluster's, under its own name ({@code
   * <id>.json}, or {@code <time>-<id>.json} in a bucket); null (and logged) otherwise: it is not
   * ours and is left alone.
   */
  static BackupRecord ours(ClusterSpec spec, String json, String recordName, String where) {
    try {
      BackupRecord r = StoredBackups.JSON.readValue(json, BackupRecord.class);
      if (spec.name().equals(r.cluster())
          && r.id() != null
          && recordName.endsWith(r.id() + ".json")
          && r.takenAt() != null
          && r.path() != null) {
        Instant.parse(r.takenAt());
        return r;
      }
    } catch (IOException | RuntimeException e) {
      log.debug("{}: {} is not backup metadata: {}", where, recordName, e.getMessage());
    }
    return null;
  }

  /**
   * The backups of this cluster in an off-site directory's listing: blocks "=== name" followed by
   * the file's content, for each {@code *.json}, then "=== sizes" and "size name" lines.
   */
  static List<RemoteBackup> parseListing(ClusterSpec spec, String listing, String where) {
    Map<String, String> records = new HashMap<>();
    Map<String, Long> sizes = new HashMap<>();
    String current = null;
    StringBuilder content = new StringBuilder();
    boolean inSizes = false;
    for (String line : listing.split("\n", -1)) {
      if (line.startsWith("=== ")) {
        if (current != null) records.put(current, content.toString());
        current = null;
        content.setLength(0);
        String name = line.substring(4);
        if (name.equals("sizes")) inSizes = true;
        else current = name;
      } else if (inSizes) {
        String[] parts = line.strip().split(" ", 2);
        if (parts.length == 2 && parts[0].matches("\\d+")) {
          sizes.put(parts[1], Long.parseLong(parts[0]));
        }
      } else if (current != null) {
        content.append(line).append('\n');
      }
    }
    if (current != null) records.put(current, content.toString());
    List<RemoteBackup> backups = new ArrayList<>();
    records.forEach(
        (name, json) -> {
          BackupRecord r = ours(spec, json, name, where);
          if (r != null && name.equals(r.id() + ".json")) {
            String file = Path.of(r.path()).getFileName().toString();
            Long size = sizes.get(file);
            backups.add(new RemoteBackup(r, json, size != null && size == r.sizeBytes()));
          }
        });
    return backups;
  }
}
