package io.etcdrunbooks.testkit;

import io.etcdrunbooks.activities.release.LocalDirReleaseStore;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Runs a sandbox until interrupted: {@code --dir D --members 3 --version 3.4.23 [--cluster sandbox]
 * [--releases DIR] [--service-kind plain|static-pod|systemd]}. Releases default to
 * $ETCD_RUNBOOKS_CACHE/etcd (or ~/.cache/etcd-runbooks/etcd), as deploy/scripts/fetch-etcd.sh fills
 * it. {@code --service-kind systemd} boots systemd machines instead (docs/machines.md; needs root).
 */
public final class SandboxMain {

  private SandboxMain() {}

  public static void main(String[] args) throws InterruptedException {
    Path dir = null;
    int members = 3;
    String version = null;
    String cluster = "sandbox";
    String serviceKind = "plain";
    Path releases = LocalDirReleaseStore.defaultDir();
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : null;
      switch (args[i]) {
        case "--dir" -> dir = Path.of(require(args[i], value));
        case "--members" -> members = Integer.parseInt(require(args[i], value));
        case "--version" -> version = require(args[i], value);
        case "--cluster" -> cluster = require(args[i], value);
        case "--releases" -> releases = Path.of(require(args[i], value));
        case "--service-kind" -> serviceKind = require(args[i], value);
        default -> usage("unknown argument " + args[i]);
      }
      i++;
    }
    if (dir == null || version == null) usage("--dir and --version are required");
    EtcdTestCluster etcd =
        create(dir, cluster, members, version, serviceKind, new LocalDirReleaseStore(releases));
    System.out.println(etcd.inventoryFile());
    System.out.flush();
    new CountDownLatch(1).await();
  }

  /**
   * A sandbox of in-process SSH hosts for {@code plain} and {@code static-pod}; systemd machines
   * (root only) for {@code systemd}. Either is stopped on Ctrl-C or SIGTERM.
   */
  public static EtcdTestCluster create(
      Path dir,
      String cluster,
      int members,
      String version,
      String serviceKind,
      io.etcdrunbooks.activities.release.ReleaseStore releases)
      throws InterruptedException {
    if (!"systemd".equals(serviceKind)) {
      // Sandbox.create registers its own shutdown hook
      return Sandbox.create(
          new SandboxSpec(dir, cluster, members, version, Map.of(), serviceKind), releases);
    }
    try {
      Machines machines = Machines.start(dir, cluster, members, version, releases);
      Runtime.getRuntime().addShutdownHook(new Thread(machines::close, "machines-shutdown"));
      return machines;
    } catch (java.io.IOException e) {
      throw new IllegalStateException("machines did not start: " + e.getMessage(), e);
    }
  }

  private static String require(String flag, String value) {
    if (value == null) usage(flag + " needs a value");
    return value;
  }

  private static void usage(String problem) {
    System.err.println(problem);
    System.err.println(
        "usage: SandboxMain --dir DIR --members N --version X.Y.Z [--cluster NAME] [--releases DIR] [--service-kind plain|static-pod|systemd]");
    System.exit(2);
  }
}
