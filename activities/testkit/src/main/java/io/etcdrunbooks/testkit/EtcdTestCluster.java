package io.etcdrunbooks.testkit;

import io.etcdrunbooks.inventory.ClusterSpec;
import java.nio.file.Path;

/**
 * A real etcd cluster made for a test, the demo or the sandbox command, and the inventory that
 * reaches it: in-process SSH hosts on 127.0.0.1 ({@link Sandbox}) or systemd machines ({@link
 * Machines}). Closing it stops everything it started.
 */
public interface EtcdTestCluster extends AutoCloseable {

  Path inventoryFile();

  ClusterSpec cluster();

  @Override
  void close();
}
