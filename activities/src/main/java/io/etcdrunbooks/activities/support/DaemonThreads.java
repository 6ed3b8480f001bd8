package io.etcdrunbooks.activities.support;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** Thread pools of daemon threads: they never keep a worker or a tool from exiting. */
public final class DaemonThreads {

  private DaemonThreads() {}

  /** A cached pool whose threads are named {@code name}. */
  public static ExecutorService cachedPool(String name) {
    return Executors.newCachedThreadPool(
        r -> {
          Thread t = new Thread(r, name);
          t.setDaemon(true);
          return t;
        });
  }
}
