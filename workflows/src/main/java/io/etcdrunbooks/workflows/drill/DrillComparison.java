package io.etcdrunbooks.workflows.drill;

import io.etcdrunbooks.workflows.activities.DrillActivities.DrillBackup;
import io.etcdrunbooks.workflows.activities.DrillActivities.DrillMeasurement;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.etcdrunbooks.workflows.model.KeyspaceHash;
import java.util.ArrayList;
import java.util.List;

/** A backup's recorded values against what its restored copy served. */
final class DrillComparison {

  private DrillComparison() {}

  static RestoreDrillResult compare(String cluster, DrillBackup checked, DrillMeasurement m) {
    BackupRecord b = checked.backup();
    List<String> differences = new ArrayList<>();
    List<String> notCompared = new ArrayList<>();
    // a cluster never written to serves revision 1; its snapshot's key bucket holds revision 0
    boolean neverWritten = b.revision() == 0 && m.revision() <= 1;
    if (m.revision() != b.revision() && !neverWritten)
      differences.add(
          "revision: the backup recorded %d, the restored copy serves %d"
              .formatted(b.revision(), m.revision()));
    if (b.liveKeys() <= 0) notCompared.add("live keys (not recorded)");
    else if (m.liveKeys() != b.liveKeys())
      differences.add(
          "live keys at revision %d: the backup recorded %d, the restored copy holds %d"
              .formatted(b.revision(), b.liveKeys(), m.liveKeys()));
    KeyspaceHash expected = b.keyspaceHash();
    KeyspaceHash actual = m.keyspaceHash();
    if (expected == null) notCompared.add("keyspace hash (not recorded)");
    else if (actual == null)
      differences.add(
          "keyspace hash at revision %d: not readable from the restored copy"
              .formatted(expected.revision()));
    else if (actual.compactRevision() != expected.compactRevision()
        || actual.hash() != expected.hash())
      differences.add(
          "keyspace hash (hashkv) at revision %d: the backup recorded %d (%s), the restored copy gives %d (%s)"
              .formatted(
                  expected.revision(),
                  expected.hash(),
                  compaction(expected),
                  actual.hash(),
                  compaction(actual)));
    return new RestoreDrillResult(
        cluster,
        b.id(),
        checked.target(),
        b.etcdVersion(),
        m.tool(),
        b.revision(),
        m.revision(),
        b.liveKeys(),
        m.liveKeys(),
        expected,
        actual,
        differences.isEmpty(),
        List.copyOf(differences),
        List.copyOf(notCompared),
        List.of(
            new RestoreDrillResult.Target(
                checked.target(), b.id(), differences.isEmpty(), List.copyOf(differences))));
  }

  private static String compaction(KeyspaceHash h) {
    return h.compactRevision() > 0 ? "compacted at " + h.compactRevision() : "never compacted";
  }
}
