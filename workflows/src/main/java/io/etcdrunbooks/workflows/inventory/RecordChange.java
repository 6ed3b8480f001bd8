package io.etcdrunbooks.workflows.inventory;

/**
 * Replaces a cluster's record if nobody changed it since {@code onVersion} was read.
 *
 * @param onVersion the version the change was made on
 * @param content the new record; empty drops it (the operator's entry stands alone again)
 * @param by who changes it (a runbook's workflow id, or the operator), for the history
 */
public record RecordChange(long onVersion, String content, String by) {

  public RecordChange {
    content = content == null ? "" : content;
    by = by == null ? "" : by;
  }
}
