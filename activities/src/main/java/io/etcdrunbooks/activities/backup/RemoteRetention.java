package io.etcdrunbooks.activities.backup;

import io.etcdrunbooks.inventory.ClusterSpec;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's retention policy applied to one remote target, as to the worker's directory: the
 * target's own backups decided on by the same {@link RetentionPolicy}, and a backup the worker
 * keeps (the one just taken among them) never deleted there. Running it again deletes nothing more.
 */
final class RemoteRetention {

  private static final Logger log = LoggerFactory.getLogger(RemoteRetention.class);

  private RemoteRetention() {}

  /** Ids deleted from the target, newest first. */
  static List<String> apply(
      RetentionPolicy policy,
      RemoteTarget target,
      ClusterSpec spec,
      Instant now,
      Set<String> keptOnTheWorker) {
    Map<String, RemoteBackup> backups =
        target.list(spec).stream()
            .collect(Collectors.toMap(b -> b.record().id(), Function.identity(), (a, b) -> a));
    List<RetentionPolicy.Candidate> candidates =
        backups.values().stream()
            .map(b -> new RetentionPolicy.Candidate(b.record().id(), b.takenAt(), b.verified()))
            .toList();
    List<String> deleted =
        policy.decide(candidates, now).delete().stream()
            .filter(id -> !keptOnTheWorker.contains(id))
            .toList();
    for (String id : deleted) {
      target.delete(spec, backups.get(id));
      log.info(
          "retention of cluster {}: deleted backup {} from {}",
          spec.name(),
          id,
          target.where(spec));
    }
    return deleted;
  }
}
