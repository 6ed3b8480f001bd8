package io.etcdrunbooks.worker;

import io.temporal.common.VersioningBehavior;
import io.temporal.common.WorkerDeploymentVersion;
import io.temporal.worker.WorkerDeploymentOptions;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;

/**
 * The worker's Temporal Worker Versioning ({@code temporal.worker-versioning.*}), checked before
 * the worker polls: a value Temporal would refuse, or a build id that does not name one build,
 * stops the process at start with the setting named. The name and build id rules are the server's
 * (worker_versioning.go: no {@code .} or {@code :} in a deployment name, {@code __} reserved; a
 * build id of at most 255 bytes, {@code limit.workerBuildIdSize}).
 */
final class WorkerVersioning {

  static final int BUILD_ID_MAX_BYTES = 255;

  private WorkerVersioning() {}

  /**
   * The deployment options of {@code config}, empty when versioning is off.
   *
   * @param productVersion the version the product jar's manifest records (Implementation-Version),
   *     null when the classes do not come from it
   */
  static Optional<WorkerDeploymentOptions> options(
      WorkerVersioningConfig config, String productVersion) {
    if (!enabled(config.enabled())) return Optional.empty();
    String name = deploymentName(config.deploymentName());
    String buildId = buildId(config.buildId(), productVersion);
    VersioningBehavior behavior = behavior(config.defaultBehavior());
    return Optional.of(
        WorkerDeploymentOptions.newBuilder()
            .setUseVersioning(true)
            .setVersion(new WorkerDeploymentVersion(name, buildId))
            .setDefaultVersioningBehavior(behavior)
            .build());
  }

  private static boolean enabled(String value) {
    String v = value == null ? "false" : value.strip().toLowerCase(Locale.ROOT);
    return switch (v) {
      case "true" -> true;
      case "false", "" -> false;
      default ->
          throw new IllegalStateException(
              "temporal.worker-versioning.enabled (TEMPORAL_WORKER_VERSIONING) must be true or"
                  + " false, got '"
                  + value
                  + "'");
    };
  }

  private static String deploymentName(String value) {
    String name = value == null ? "" : value.strip();
    String problem =
        name.isEmpty()
            ? "is empty"
            : name.contains(".") || name.contains(":")
                ? "contains '.' or ':', which Temporal refuses in a deployment name"
                : name.startsWith("__") ? "starts with '__', which Temporal reserves" : null;
    if (problem != null) {
      throw new IllegalStateException(
          "temporal.worker-versioning.deployment-name (TEMPORAL_WORKER_DEPLOYMENT_NAME) '"
              + value
              + "' "
              + problem
              + ": keep the default etcd-runbooks or use letters, digits, '-' and '_'");
    }
    return name;
  }

  private static String buildId(String value, String productVersion) {
    String buildId = value == null ? "" : value.strip();
    if (buildId.isEmpty()) {
      if (productVersion == null || productVersion.endsWith("-SNAPSHOT")) {
        throw new IllegalStateException(
            "temporal.worker-versioning.build-id (TEMPORAL_WORKER_BUILD_ID) is not set and this"
                + " worker records no release version to use instead ("
                + (productVersion == null ? "not run from the product jar" : productVersion)
                + ", and a SNAPSHOT is not one build): set it to a value that names this build"
                + " alone, such as the image tag or the git commit; see"
                + " docs/upgrading-the-worker.md");
      }
      return productVersion;
    }
    if (buildId.startsWith("__")) {
      throw new IllegalStateException(
          "temporal.worker-versioning.build-id (TEMPORAL_WORKER_BUILD_ID) '"
              + buildId
              + "' starts with '__', which Temporal reserves");
    }
    if (buildId.getBytes(StandardCharsets.UTF_8).length > BUILD_ID_MAX_BYTES) {
      throw new IllegalStateException(
          "temporal.worker-versioning.build-id (TEMPORAL_WORKER_BUILD_ID) is "
              + buildId.getBytes(StandardCharsets.UTF_8).length
              + " bytes long: Temporal takes at most "
              + BUILD_ID_MAX_BYTES);
    }
    return buildId;
  }

  private static VersioningBehavior behavior(String value) {
    String v = value == null ? "" : value.strip().toLowerCase(Locale.ROOT).replace('_', '-');
    return switch (v) {
      case "auto-upgrade" -> VersioningBehavior.AUTO_UPGRADE;
      case "pinned" -> VersioningBehavior.PINNED;
      default ->
          throw new IllegalStateException(
              "temporal.worker-versioning.default-behavior (TEMPORAL_WORKER_VERSIONING_BEHAVIOR)"
                  + " must be auto-upgrade or pinned, got '"
                  + value
                  + "'");
    };
  }
}
