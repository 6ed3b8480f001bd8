package io.etcdrunbooks.workflows.model;

import java.util.Comparator;

/** Semantic-version ordering of plain major.minor.patch strings. */
public final class Versions {

  public static final Comparator<String> ORDER =
      Comparator.comparing(Versions::parts, Versions::compareParts);

  private Versions() {}

  public static int[] parts(String version) {
    String[] s = version.split("\\.");
    if (s.length != 3)
      throw new IllegalArgumentException("not a major.minor.patch version: '" + version + "'");
    return new int[] {Integer.parseInt(s[0]), Integer.parseInt(s[1]), Integer.parseInt(s[2])};
  }

  private static int compareParts(int[] a, int[] b) {
    for (int i = 0; i < 3; i++) {
      if (a[i] != b[i]) return Integer.compare(a[i], b[i]);
    }
    return 0;
  }
}
