package io.etcdrunbooks.workflows.phases;

import io.etcdrunbooks.workflows.activities.ApiServerActivities.ControlPlaneRef;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code --storage-backend} each kube-apiserver of the inventory reads ("etcd2", "etcd3", or ""
 * when its manifest has no such flag: etcd3 since Kubernetes 1.6), from its manifest.
 */
public final class ApiServerBackends {

  private ApiServerBackends() {}

  /** Control-plane host -> its storage backend, in the order given. */
  public static Map<String, String> read(RunContext ctx, List<String> hosts) {
    Map<String, String> backends = new LinkedHashMap<>();
    for (String host : hosts) {
      backends.put(
          host,
          ctx.progress()
              .record(
                  host + ": --storage-backend",
                  () ->
                      ctx.activities()
                          .apiServer
                          .storageBackend(new ControlPlaneRef(ctx.cluster(), host))));
    }
    return backends;
  }
}
