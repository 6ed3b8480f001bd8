package io.etcdrunbooks.inventory;

import java.util.List;

/** A runbook named a cluster the inventory does not have. */
public class UnknownClusterException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String name;

  public UnknownClusterException(String name, List<String> known) {
    super(
        "unknown cluster '"
            + name
            + "': the inventory has "
            + (known.isEmpty() ? "no clusters" : known.stream().sorted().toList())
            + "; add it to the inventory file or check the name");
    this.name = name;
  }

  /** For {@link InvalidClusterException}: a cluster that is there but refused. */
  UnknownClusterException(String name, String message) {
    super(message);
    this.name = name;
  }

  /** The name asked for. */
  public String name() {
    return name;
  }
}
