package io.etcdrunbooks.activities.release;

import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.workflows.activities.ReleaseActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.VersionOffer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/** {@link ReleaseActivities} over the worker's release store (the same for every cluster). */
public final class ReleaseActivitiesImpl implements ReleaseActivities {

  private final ClusterTargets targets;
  private final ReleaseStore releases;
  private final ImageTags imageTags = new ImageTags();
  private final Map<String, List<String>> flagsByVersion = new ConcurrentHashMap<>();

  /** A flag at the start of a line of etcd's --help, after its indentation. */
  private static final Pattern FLAG = Pattern.compile("(?m)^\\s+(--[a-z0-9][a-z0-9-]*)");

  public ReleaseActivitiesImpl(ClusterTargets targets, ReleaseStore releases) {
    this.targets = targets;
    this.releases = releases;
  }

  @Override
  public List<String> availableVersions(ClusterRef cluster) {
    return offer(cluster).versions();
  }

  /**
   * Static pods run the image of a version, which kubelet pulls from the cluster's image repository
   * (kubeadm's imageRepository, maybe an air-gapped mirror): only versions whose tag it serves are
   * offered. The binary source must have them too, for their flags.
   */
  @Override
  public VersionOffer offer(ClusterRef cluster) {
    ServiceSpec service = targets.cluster(cluster.cluster()).service();
    if (service == null || !ServiceSpec.STATIC_POD.equals(service.kind()))
      return VersionOffer.fromReleaseStore(releases.versions());
    ImageTags.ImageName image;
    try {
      image = ImageTags.ImageName.parse(service.effectiveImage());
    } catch (IllegalArgumentException e) {
      throw FailureType.InvalidRequest.nonRetryable(
          "cluster '" + cluster.cluster() + "': " + e.getMessage());
    }
    List<String> tags = imageTags.tags(image);
    List<String> served =
        releases.versions().stream().filter(v -> tags.contains(image.tagOf(v))).toList();
    return new VersionOffer(served, image.describe(), service.effectiveImage(), tags);
  }

  @Override
  public List<String> flagsOf(String version) {
    return flagsByVersion.computeIfAbsent(version, this::readHelp);
  }

  private List<String> readHelp(String version) {
    Path etcd = releases.binDir(version).resolve("etcd");
    try {
      Process help =
          new ProcessBuilder(etcd.toString(), "--help").redirectErrorStream(true).start();
      String text = new String(help.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!help.waitFor(30, TimeUnit.SECONDS)) help.destroyForcibly();
      List<String> flags =
          FLAG.matcher(text).results().map(m -> m.group(1)).distinct().sorted().toList();
      if (flags.isEmpty()) {
        throw new IllegalStateException(etcd + " --help listed no flags: " + text.strip());
      }
      return flags;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + etcd + " --help: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted running " + etcd + " --help", e);
    }
  }
}
