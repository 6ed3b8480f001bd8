package io.etcdrunbooks.inventory;

/**
 * Where runbooks record the inventory changes they make (members added, removed or replaced, URLs,
 * TLS, tombstones), with compare-and-swap: a writer reads the content and its version, changes it,
 * and writes only if nobody wrote in between; otherwise it reads again and applies its change to
 * what is there now. See docs/inventory-store.md for which store to use where.
 */
public interface InventoryStore {

  /** The inventory's YAML as it is now, and the version a write must name to replace it. */
  Versioned read();

  /**
   * Replaces the content if its version is still {@code version}. A reader sees the old content or
   * the new one, never part of it.
   *
   * @return false, writing nothing, when the content changed since that version was read
   */
  boolean writeIfUnchanged(String version, String content);

  /**
   * Fails with a message for the operator when this worker could not write here; a runbook that
   * must record a change checks this before it touches anything.
   */
  void checkWritable();

  /** Where the store is, for logs and messages. */
  String location();

  /**
   * @param version opaque; equal versions mean equal content
   */
  record Versioned(String content, String version) {}
}
