package io.etcdrunbooks.activities.apiserver;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The {@code --etcd-servers} flag of a kube-apiserver static-pod manifest, read and rewritten in
 * place: only the value on that one line changes, so comments, order and every other byte of the
 * file stay as they were.
 */
final class EtcdServersFlag {

  private static final Pattern LINE =
      Pattern.compile("(?m)^(\\s*-\\s*[\"']?--etcd-servers=)([^\"'\\s]*)([\"']?\\s*)$");

  private EtcdServersFlag() {}

  /** The servers the manifest lists; fails when the flag is missing or given twice. */
  static List<String> read(String manifest, String where) {
    Matcher m = single(manifest, where);
    return Arrays.stream(m.group(2).split(",")).filter(s -> !s.isBlank()).toList();
  }

  /** The manifest with the flag's value replaced by {@code servers}, nothing else changed. */
  static String rewrite(String manifest, List<String> servers, String where) {
    if (servers.isEmpty())
      throw new IllegalArgumentException(
          "refusing to point " + where + " at no etcd server at all");
    for (String server : servers) {
      if (!server.matches("https?://[^,\\s\"']+")) {
        throw new IllegalArgumentException("not an etcd client URL: '" + server + "'");
      }
    }
    Matcher m = single(manifest, where);
    return manifest.substring(0, m.start(2))
        + String.join(",", servers)
        + manifest.substring(m.end(2));
  }

  private static Matcher single(String manifest, String where) {
    Matcher m = LINE.matcher(manifest);
    List<Integer> starts = new ArrayList<>();
    while (m.find()) starts.add(m.start());
    if (starts.size() != 1) {
      throw new IllegalStateException(
          where
              + " has "
              + (starts.isEmpty() ? "no" : starts.size())
              + " '- --etcd-servers=...'"
              + " command line(s); expected exactly one. Fix the manifest by hand, then run the runbook again");
    }
    m = LINE.matcher(manifest);
    m.find();
    return m;
  }
}
