package io.etcdrunbooks.activities.host;

import io.etcdrunbooks.activities.host.StaticPodManifest.Location;
import io.etcdrunbooks.activities.ssh.SshCommandException;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ServiceSpec;
import java.nio.file.Path;

/**
 * Installs a version on a static-pod member by setting its manifest's image tag, in place or
 * stashed, wherever the manifest is. Nothing is uploaded: kubelet pulls the image. The previous
 * manifest is kept as a backup.
 */
public final class ManifestImageInstaller implements VersionInstaller {

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
