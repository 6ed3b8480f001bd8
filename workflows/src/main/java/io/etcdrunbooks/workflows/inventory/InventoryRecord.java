package io.etcdrunbooks.workflows.inventory;

import com.fasterxml.jackson.annotation.JsonIgnore;

/**
 * What the runbooks have recorded about one cluster, over the operator's inventory entry.
 *
 * @param content the record (the fields runbooks own, as the worker writes them); empty when there
 *     is none and the operator's entry stands alone
 * @param version raised by each change; a change names the version it was made on
 */
public record InventoryRecord(String content, long version) {

  public InventoryRecord {
    content = content == null ? "" : content;
  }

  /** No record yet: the operator's entry stands alone. */
  public static InventoryRecord none() {
    return new InventoryRecord("", 0);
  }

  @JsonIgnore
  public boolean isEmpty() {
    return content.isEmpty();
  }
}
