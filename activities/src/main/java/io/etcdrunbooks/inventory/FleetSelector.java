package io.etcdrunbooks.inventory;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Which clusters a fleet holds: {@code key=value} terms separated by commas, every one of which a
 * cluster's labels must match ({@code env=prod,region=eu}); the key {@code cluster} matches the
 * cluster's name; {@code *} selects every cluster.
 */
public final class FleetSelector {

  private static final Pattern TERM = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._/-]{0,62}");

  private final Map<String, String> terms;

  private FleetSelector(Map<String, String> terms) {
    this.terms = Map.copyOf(terms);
  }

  /** Parses a selector; throws IllegalArgumentException naming the bad term. */
  public static FleetSelector parse(String selector) {
    String text = selector == null ? "" : selector.strip();
    if (text.isEmpty()) {
      throw new IllegalArgumentException(
          "empty selector: give key=value terms (env=prod,size=small) or * for every cluster");
    }
    Map<String, String> terms = new LinkedHashMap<>();
    if (text.equals("*")) return new FleetSelector(terms);
    for (String term : text.split(",")) {
      String[] kv = term.strip().split("=", 2);
      if (kv.length != 2
          || !TERM.matcher(kv[0].strip()).matches()
          || !TERM.matcher(kv[1].strip()).matches()) {
        throw new IllegalArgumentException(
            "selector term '"
                + term.strip()
                + "' is not key=value (letters, digits, . _ / -); example: env=prod,size=small");
      }
      terms.put(kv[0].strip(), kv[1].strip());
    }
    return new FleetSelector(terms);
  }

  public boolean matches(ClusterSpec cluster) {
    for (Map.Entry<String, String> term : terms.entrySet()) {
      String has =
          term.getKey().equals("cluster") ? cluster.name() : cluster.labels().get(term.getKey());
      if (!term.getValue().equals(has)) return false;
    }
    return true;
  }

  /** The inventory's clusters this selector matches, by name. */
  public List<ClusterSpec> select(Inventory inventory) {
    return inventory.clusters().values().stream()
        .filter(this::matches)
        .sorted(java.util.Comparator.comparing(ClusterSpec::name))
        .toList();
  }
}
