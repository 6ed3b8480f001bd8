package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.model.EtcdVersion;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Which tool restores each member, so that the revision never goes back. A restored cluster whose
 * revision is lower than one a watcher saw serves it old events as new, or none: kube-apiserver's
 * watch cache and every informer holding a newer resourceVersion miss changes until they relist.
 * etcd's guide for Kubernetes restores with {@code etcdutl snapshot restore --bump-revision
 * --mark-compacted}, which came with 3.5.10. A member whose own tool lacks it is restored with a
 * 3.5.10+ etcdutl from the binary source: its data dir is the same bbolt database and WAL that 3.3
 * and 3.4 start on (tried on real 3.3.25 and 3.4.23 members).
 */
public final class RestoreTools {

  private static final EtcdVersion FIRST_NEWER_MINOR = new EtcdVersion(3, 6, 0);

  private RestoreTools() {}

  /**
   * Fills {@code tools} (member -> the version whose tool restores it; "" for its own) and returns
   * the problems: members whose revision would go back, unless acknowledged.
   */
  static List<String> choose(
      RestoreRun run, Supplier<List<String>> available, Map<String, String> tools) {
    List<String> ownToolGoesBack = new ArrayList<>();
    List<String> offered = null;
    Optional<String> borrowed = Optional.empty();
    for (Map.Entry<String, String> member : run.versions.entrySet()) {
      boolean bumps =
          EtcdVersion.find(member.getValue())
              .map(EtcdVersion::restoresWithRevisionBump)
              .orElse(false);
      if (bumps) {
        tools.put(member.getKey(), "");
        continue;
      }
      if (offered == null) {
        offered = available.get();
        borrowed = bumpingRelease(run.backup.etcdVersion(), offered);
      }
      tools.put(member.getKey(), borrowed.orElse(""));
      if (borrowed.isEmpty()) ownToolGoesBack.add(member.getKey() + " (" + member.getValue() + ")");
    }
    if (ownToolGoesBack.isEmpty() || run.request.acknowledgeRevisionsBackward()) return List.of();
    return List.of(
        ("members %s would be restored with their own etcd's tool, which cannot raise the"
                + " revision (--bump-revision came with etcdutl 3.5.10), and the binary source"
                + " offers no 3.5 release from 3.5.10 on to restore with (it has %s): the"
                + " cluster's revision would go back from %d to the backup's %d, and every"
                + " kube-apiserver watch cache and informer holding a newer resourceVersion would"
                + " miss events until it relists. Add such a release to the binary source, or"
                + " set acknowledgeRevisionsBackward and restart every kube-apiserver and"
                + " controller after the restore")
            .formatted(ownToolGoesBack, offered, run.lastSeen, run.backup.revision()));
  }

  /**
   * The newest 3.5 release from 3.5.10 on that the binary source offers, for a backup no newer than
   * 3.5; empty when there is none. RecoverQuorum takes its tool for a survivor's data the same way.
   */
  public static Optional<String> bumpingRelease(String backupVersion, List<String> available) {
    boolean newerData =
        EtcdVersion.find(backupVersion).map(v -> !v.isBefore(FIRST_NEWER_MINOR)).orElse(true);
    if (newerData) return Optional.empty();
    return available.stream()
        .flatMap(v -> EtcdVersion.find(v).stream())
        .filter(EtcdVersion::restoresWithRevisionBump)
        .filter(v -> v.isBefore(FIRST_NEWER_MINOR))
        .max(Comparator.naturalOrder())
        .map(EtcdVersion::toString);
  }
}
