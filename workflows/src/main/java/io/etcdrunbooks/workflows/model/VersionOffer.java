package io.etcdrunbooks.workflows.model;

import java.util.List;

/**
 * The versions a cluster can be moved to, and where they come from.
 *
 * @param versions versions offered, for example [3.4.23, 3.5.16]
 * @param imageRepository static-pod clusters: the image repository whose tags limit {@code
 *     versions} ({@code registry.k8s.io/etcd}); null where the release store alone decides
 * @param imageTemplate static-pod clusters: the image of a version, with {@code {version}}
 * @param repositoryTags static-pod clusters: every tag the repository served
 */
public record VersionOffer(
    List<String> versions,
    String imageRepository,
    String imageTemplate,
    List<String> repositoryTags) {

  public VersionOffer {
    versions = versions == null ? List.of() : List.copyOf(versions);
    repositoryTags = repositoryTags == null ? List.of() : List.copyOf(repositoryTags);
  }

  /** What the release store offers, no image repository involved. */
  public static VersionOffer fromReleaseStore(List<String> versions) {
    return new VersionOffer(versions, null, null, List.of());
  }

  public boolean fromImages() {
    return imageRepository != null;
  }

  /** Why the version is not offered, for a refusal. */
  public String whyNotOffered(String version) {
    if (!fromImages())
      return "target version %s is not offered by the binary source (it has %s); fetch it or pick one of those"
          .formatted(version, sorted());
    String image = imageTemplate.replace("{version}", version);
    String tag = image.substring(image.lastIndexOf(':') + 1);
    if (!repositoryTags.contains(tag))
      return ("target version %s is not offered: the image repository %s has no tag %s (%s);"
              + " push that image to the repository (or the mirror) or pick one of %s")
          .formatted(version, imageRepository, tag, image, sorted());
    return ("target version %s is not offered: the image repository %s has %s, but the binary"
            + " source has no etcd %s to read its flags from (it offers %s); fetch it or pick one"
            + " of those")
        .formatted(version, imageRepository, image, version, sorted());
  }

  private List<String> sorted() {
    return versions.stream().sorted(EtcdVersion.STRING_ORDER).toList();
  }

  /** Where versions come from, for messages: "the binary source" or the image repository. */
  public String source() {
    return fromImages()
        ? "the image repository " + imageRepository + " (with the binary source)"
        : "the binary source";
  }
}
