package io.etcdrunbooks.inventory;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.etcdrunbooks.workflows.inventory.InventoryRecord;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's inventory with the runbooks' record of each cluster over it. A record is read from
 * its store at most once per {@code maxAge} (a change another worker made is seen within it); a
 * change this process made is seen at once ({@link #recorded}). A record that is there wins over
 * the file's {@code members}, {@code fenced} and TLS paths, and the log says so once per change of
 * either.
 */
final class RecordOverlay {

  private static final Logger LOG = LoggerFactory.getLogger(RecordOverlay.class);
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  /**
   * A record that could not be read is not asked for again for this long: a query that no worker
   * answers waits for its deadline, and every read of the inventory would wait with it.
   */
  private static final long RETRY_UNREADABLE_NANOS = Duration.ofSeconds(10).toNanos();

  private final InventoryRecords records;
  private final long maxAgeNanos;
  private final Map<String, Cached> cache = new HashMap<>();

  private final Map<String, Unreadable> unreadable = new HashMap<>();
  private final Set<String> said = new HashSet<>();
  private Inventory composedFrom;
  private Map<String, InventoryRecord> composedWith;
  private Inventory composed;

  RecordOverlay(InventoryRecords records, Duration maxAge) {
    this.records = records;
    this.maxAgeNanos = maxAge.toNanos();
  }

  InventoryRecords records() {
    return records;
  }

  synchronized Inventory over(Inventory operators) {
    Map<String, InventoryRecord> now = new LinkedHashMap<>();
    Map<String, String> unreadable = new LinkedHashMap<>();
    for (String name : operators.clusters().keySet()) {
      try {
        now.put(name, current(name));
      } catch (RuntimeException e) {
        unreadable.put(name, e.getMessage());
      }
    }
    if (unreadable.isEmpty() && operators == composedFrom && now.equals(composedWith))
      return composed;
    Map<String, ClusterSpec> valid = new LinkedHashMap<>();
    Map<String, Inventory.InvalidCluster> invalid =
        new LinkedHashMap<>(operators.invalidClusters());
    operators
        .clusters()
        .forEach(
            (name, entry) -> {
              String problem = unreadable.get(name);
              if (problem != null) {
                invalid.put(
                    name,
                    invalid(
                        entry,
                        List.of(
                            "cluster '"
                                + InventoryFieldRules.printable(name)
                                + "': the runbooks' record in "
                                + records.location(name)
                                + " cannot be read, so its members are not known: "
                                + problem)));
                return;
              }
              InventoryRecord record = now.get(name);
              if (record.isEmpty()) {
                valid.put(name, entry);
                return;
              }
              ClusterSpec over;
              List<String> problems;
              try {
                over = ClusterRecord.parse(record.content(), records.location(name)).over(entry);
                problems = InventoryLoader.clusterProblems(name, over);
              } catch (RuntimeException e) {
                over = entry;
                problems = List.of("cluster '" + name + "': " + e.getMessage());
              }
              if (!problems.isEmpty()) {
                invalid.put(name, invalid(over, withForget(name, problems)));
                return;
              }
              sayWhenTheRecordWins(name, entry, over, record);
              valid.put(name, over);
            });
    Inventory result = new Inventory(operators.releases(), valid, operators.fleets(), invalid);
    if (unreadable.isEmpty()) {
      composedFrom = operators;
      composedWith = now;
      composed = result;
    }
    return result;
  }

  /** A change this process recorded: seen by its next read at once. */
  synchronized void recorded(String cluster, InventoryRecord record) {
    cache.put(cluster, new Cached(record, System.nanoTime()));
    unreadable.remove(cluster);
  }

  private InventoryRecord current(String cluster) {
    Cached cached = cache.get(cluster);
    if (cached != null && System.nanoTime() - cached.readAt() < maxAgeNanos) return cached.record();
    Unreadable failed = unreadable.get(cluster);
    if (cached == null
        && failed != null
        && System.nanoTime() - failed.at() < Math.max(maxAgeNanos, RETRY_UNREADABLE_NANOS)) {
      throw new IllegalStateException(failed.problem());
    }
    try {
      InventoryRecord record = records.read(cluster);
      cache.put(cluster, new Cached(record, System.nanoTime()));
      unreadable.remove(cluster);
      return record;
    } catch (RuntimeException e) {
      unreadable.put(cluster, new Unreadable(String.valueOf(e.getMessage()), System.nanoTime()));
      if (cached == null) throw e;
      LOG.warn(
          "the runbooks' record in {} cannot be read ({}); using the one read {} s ago",
          records.location(cluster),
          e.getMessage(),
          (System.nanoTime() - cached.readAt()) / 1_000_000_000L);
      return cached.record();
    }
  }

  private void sayWhenTheRecordWins(
      String name, ClusterSpec file, ClusterSpec over, InventoryRecord record) {
    if (file.members().equals(over.members())) return;
    String key = name + "\n" + record.version() + "\n" + file.members();
    if (!said.add(key)) return;
    LOG.warn(
        "cluster '{}': its members are the ones runbooks recorded in {} (version {}): {}; the"
            + " inventory file's {} are not used. To make the file's members count again (after"
            + " editing them to match the cluster), drop the record: {}",
        InventoryFieldRules.printable(name),
        records.location(name),
        record.version(),
        names(over),
        names(file),
        records.forgetCommand(name));
  }

  private List<String> withForget(String name, List<String> problems) {
    return problems.stream()
        .map(
            p ->
                p
                    + " (with the runbooks' record in "
                    + records.location(name)
                    + " over the inventory file's entry; "
                    + records.forgetCommand(name)
                    + " drops the record)")
        .toList();
  }

  private static Inventory.InvalidCluster invalid(ClusterSpec entry, List<String> problems) {
    return new Inventory.InvalidCluster(YAML.valueToTree(entry), problems);
  }

  private static List<String> names(ClusterSpec cluster) {
    return cluster.members().stream().map(MemberSpec::name).toList();
  }

  private record Cached(InventoryRecord record, long readAt) {}

  private record Unreadable(String problem, long at) {}
}
