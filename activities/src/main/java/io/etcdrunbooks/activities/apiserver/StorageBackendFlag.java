package io.etcdrunbooks.activities.apiserver;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;

/**
 * The {@code --storage-backend} flag of a kube-apiserver static-pod manifest, read and rewritten in
 * place as {@link EtcdServersFlag} does: only its value changes.
 */
final class StorageBackendFlag {

  static final Set<String> BACKENDS = Set.of("etcd2", "etcd3");

  private static final Pattern LINE =
      Pattern.compile("(?m)^(\\s*-\\s*[\"']?--storage-backend=)([^\"'\\s]*)([\"']?\\s*)$");

  private StorageBackendFlag() {}

  /** The flag's value; "" when the manifest has none (kube-apiserver then reads etcd3). */
  static String read(String manifest, String where) {
    return single(manifest, where).map(m -> m.group(2)).orElse("");
  }

  /** The manifest with the flag set to {@code backend}; fails when it has no such flag. */
  static String rewrite(String manifest, String backend, String where) {
    if (!BACKENDS.contains(backend)) {
      throw new IllegalArgumentException(
          "--storage-backend must be etcd2 or etcd3, got '" + backend + "'");
    }
    MatchResult m =
        single(manifest, where)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        where
                            + " has no '- --storage-backend=...' command line; the runbook changes the flag but"
                            + " never adds it"));
    return manifest.substring(0, m.start(2)) + backend + manifest.substring(m.end(2));
  }

  private static Optional<MatchResult> single(String manifest, String where) {
    List<MatchResult> found = LINE.matcher(manifest).results().toList();
    if (found.size() > 1) {
      throw new IllegalStateException(
          where
              + " has "
              + found.size()
              + " '- --storage-backend=...' command lines; expected at most one. Fix the manifest"
              + " by hand, then run the runbook again");
    }
    return found.stream().findFirst();
  }
}
