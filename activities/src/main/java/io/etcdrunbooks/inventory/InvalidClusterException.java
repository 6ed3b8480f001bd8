package io.etcdrunbooks.inventory;

import java.util.List;

/**
 * A runbook, status or alert named a cluster whose inventory entry is invalid: refused with the
 * entry's problems, while the inventory's other clusters are served. An {@link
 * UnknownClusterException}, so that every activity refuses it as it refuses an unknown cluster
 * (non-retryable, before anything is touched).
 */
public final class InvalidClusterException extends UnknownClusterException {
  private static final long serialVersionUID = 1L;

  public InvalidClusterException(String name, List<String> problems) {
    super(
        name,
        "cluster '"
            + InventoryFieldRules.printable(name)
            + "' is refused: its inventory entry is invalid ("
            + String.join("; ", problems)
            + "). Fix it in the inventory file; the other clusters are not affected");
  }
}
