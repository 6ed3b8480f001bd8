package io.etcdrunbooks.api.auth;

import java.util.List;
import java.util.regex.Pattern;

/**
 * Who made an API call: the name of the token it presented (never the token), its role, and the
 * clusters it may act on ({@code *} globs; empty: all).
 */
public record Caller(String name, Role role, List<String> clusters) {

  public Caller {
    clusters = clusters == null ? List.of() : List.copyOf(clusters);
  }

  /** The token may act on some clusters only. */
  public boolean isLimited() {
    return !clusters.isEmpty();
  }

  public boolean mayActOn(String cluster) {
    return clusters.isEmpty()
        || clusters.stream().anyMatch(glob -> glob(glob).matcher(cluster).matches());
  }

  private static Pattern glob(String glob) {
    StringBuilder regex = new StringBuilder();
    for (String part : glob.split("\\*", -1)) {
      if (!regex.isEmpty()) regex.append(".*");
      regex.append(Pattern.quote(part));
    }
    return Pattern.compile(regex.toString());
  }
}
