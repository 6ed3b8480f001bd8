package io.etcdrunbooks.activities.apiserver;

import java.util.List;
import java.util.regex.MatchResult;
import java.util.regex.Pattern;

/** The {@code --etcd-prefix} flag of a kube-apiserver static-pod manifest, read only. */
final class EtcdPrefixFlag {

  private static final Pattern LINE =
      Pattern.compile("(?m)^\\s*-\\s*[\"']?--etcd-prefix=([^\"'\\s]*)[\"']?\\s*$");

  private EtcdPrefixFlag() {}

  /** The flag's value; "" when the manifest has none (kube-apiserver then uses "/registry"). */
  static String read(String manifest, String where) {
    List<MatchResult> found = LINE.matcher(manifest).results().toList();
    if (found.size() > 1) {
      throw new IllegalStateException(
          where
              + " has "
              + found.size()
              + " '- --etcd-prefix=...' command lines; expected at most one. Fix the manifest by"
              + " hand, then run the runbook again");
    }
    return found.isEmpty() ? "" : found.get(0).group(1);
  }
}
