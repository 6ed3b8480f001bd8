package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.host.StaticPodManifest.Location;
import io.etcdrunbooks.activities.ssh.ExecResult;
import io.etcdrunbooks.activities.ssh.SshCommandException;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.support.DaemonThreads;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.workflows.common.FailureType;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Installs a version on a static-pod member by setting its manifest's image tag, in place or
 * stashed, wherever the manifest is. Nothing is uploaded: the image is pulled on the node while
 * staging, before the member stops. The previous manifest is kept as a backup.
 */
public final class ManifestImageInstaller implements VersionInstaller {

  private static final ExecutorService PULLS = DaemonThreads.cachedPool("image-pull");
  private static final Duration PULL_TIMEOUT = Duration.ofMinutes(10);

  private final StaticPodManifest manifest;
  private final String imageTemplate;

  public ManifestImageInstaller(SshConnector ssh, ServiceSpec spec) {
    this.manifest = new StaticPodManifest(ssh, spec);
    this.imageTemplate = spec.effectiveImage();
  }

  @Override
  public String installedVersion(MemberHost host) {
    Location location = manifest.locate(host);
    if (location == Location.MISSING) return "";
    String path = manifest.path(host, location);
    String image = imageIn(host, path, manifest.read(host, path));
    return ManifestImage.versionOf(image)
        .orElseThrow(
            () ->
                new SshCommandException(
                    "the image "
                        + image
                        + " in "
                        + path
                        + " of "
                        + host.describe()
                        + " has no etcd version tag"));
  }

  @Override
  public String installAndSelect(
      MemberHost host, String version, Path binDir, Runnable beforeSwitch) {
    Location location = manifest.locate(host);
    if (location == Location.MISSING) {
      throw new SshCommandException(
          "no etcd manifest for "
              + host.describe()
              + " at "
              + manifest.inPlacePath(host)
              + " or "
              + manifest.stashedPath(host)
              + "; put the member's manifest back first");
    }
    String path = manifest.path(host, location);
    String before = manifest.read(host, path);
    String image = imageTemplate.replace("{version}", version);
    String after;
    try {
      after = ManifestImage.withImage(before, image);
    } catch (IllegalArgumentException e) {
      throw new SshCommandException(
          "cannot set image "
              + image
              + " in "
              + path
              + " of "
              + host.describe()
              + ": "
              + e.getMessage());
    }
    if (after.equals(before)) return "image " + image + " already set in " + path;
    beforeSwitch.run();
    manifest.replace(host, path, before, after);
    return "image set to "
        + image
        + " in "
        + path
        + " (previous manifest kept as "
        + manifest.backupPath(host)
        + ")";
  }

  /**
   * Pulls the version's image on the node ({@code crictl pull}, as {@code kubeadm config images
   * pull} does) unless the runtime has it already, so that kubelet starts the member at once and a
   * tag the repository lacks stops the run before any member does.
   */
  @Override
  public String stage(MemberHost host, String version, Path binDir) {
    String image = imageTemplate.replace("{version}", version);
    String script =
        "if crictl inspecti -q "
            + quote(image)
            + " >/dev/null 2>&1; then echo present; else crictl pull "
            + quote(image)
            + " >&2 && echo pulled; fi";
    ExecResult result =
        heartbeating("pulling " + image, () -> manifest.exec(host, script, PULL_TIMEOUT));
    if (!result.ok()) {
      throw FailureType.ImagePullFailed.nonRetryable(
          "the node of "
              + host.describe()
              + " cannot pull "
              + image
              + " (crictl pull, exit code "
              + result.exitCode()
              + ")"
              + (result.stderr().isBlank() ? "" : ": " + result.stderr().strip())
              + "; no member was stopped. Make the image available in the image repository (or"
              + " the node's access to it), then run again");
    }
    return "present".equals(result.stdout().strip())
        ? "image " + image + " already on the node"
        : "image " + image + " pulled";
  }

  /** A pull takes minutes on a slow link: the activity heartbeats while it waits. */
  private static ExecResult heartbeating(String what, Supplier<ExecResult> command) {
    Future<ExecResult> running = PULLS.submit(command::get);
    try {
      while (true) {
        Heartbeats.beat(what);
        try {
          return running.get(1, TimeUnit.SECONDS);
        } catch (TimeoutException notYet) {
          // beat again
        }
      }
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r
          ? r
          : new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while " + what, e);
    } finally {
      running.cancel(true);
    }
  }

  private static String imageIn(MemberHost host, String path, String text) {
    try {
      return ManifestImage.imageOf(text);
    } catch (IllegalArgumentException e) {
      throw new SshCommandException(
          "cannot read the etcd image of "
              + path
              + " on "
              + host.describe()
              + ": "
              + e.getMessage());
    }
  }
}
