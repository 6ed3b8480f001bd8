package io.etcdrunbooks.testkit;

import io.etcdrunbooks.activities.release.LocalDirReleaseStore;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * Runs a sandbox until interrupted: {@code --dir D --members 3 --version 3.4.23 [--cluster sandbox]
 * [--releases DIR] [--service-kind plain|static-pod]}. Releases default to
 * $ETCD_RUNBOOKS_CACHE/etcd (or ~/.cache/etcd-runbooks/etcd), as deploy/scripts/fetch-etcd.sh fills
 * it.
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
    Sandbox sandbox =
        Sandbox.create(
            new SandboxSpec(dir, cluster, members, version, Map.of(), serviceKind),
            new LocalDirReleaseStore(releases));
    System.out.println(sandbox.inventoryFile());
    System.out.flush();
    // The shutdown hook that Sandbox.create registered stops everything on Ctrl-C or SIGTERM.
    new CountDownLatch(1).await();
  }

  private static String require(String flag, String value) {
    if (value == null) usage(flag + " needs a value");
    return value;
  }

  private static void usage(String problem) {
    System.err.println(problem);
    System.err.println(
        "usage: SandboxMain --dir DIR --members N --version X.Y.Z [--cluster NAME] [--releases DIR] [--service-kind plain|static-pod]");
    System.exit(2);
  }
}
