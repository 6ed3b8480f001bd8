package io.etcdrunbooks.worker;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;

/**
 * Temporal Worker Versioning for this worker ({@link WorkerVersioning}); off unless {@code enabled}
 * is true. See docs/upgrading-the-worker.md for when to turn it on.
 *
 * @param enabled {@code true} or {@code false}
 * @param deploymentName the Worker Deployment every version of this tool belongs to
 * @param buildId this build; empty: the release version the product jar records, refused when it
 *     records none (a SNAPSHOT is not one build)
 * @param defaultBehavior {@code auto-upgrade} or {@code pinned}: what a runbook started on this
 *     version does when another version becomes current
 */
@ConfigurationProperties("temporal.worker-versioning")
public record WorkerVersioningConfig(
    @Bindable(defaultValue = "false") String enabled,
    @Bindable(defaultValue = "etcd-runbooks") String deploymentName,
    @Nullable String buildId,
    @Bindable(defaultValue = "auto-upgrade") String defaultBehavior) {

  /** Off: what an install that never set it gets. */
  public static final WorkerVersioningConfig OFF =
      new WorkerVersioningConfig("false", "etcd-runbooks", null, "auto-upgrade");
}
