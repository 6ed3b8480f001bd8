package io.etcdrunbooks.activities.host;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The etcd container image of a static-pod manifest: read it, and change it by editing only its
 * line of text.
 */
public final class ManifestImage {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private ManifestImage() {}

  /** The image of the container named etcd, else of the first container. */
  public static String imageOf(String manifest) {
    JsonNode container = etcdContainer(parse(manifest));
    JsonNode image = container.get("image");
    if (image == null || !image.isTextual() || image.asText().isBlank())
      throw new IllegalArgumentException("the etcd container has no image");
    return image.asText();
  }

  /** The container's command (its arguments included), empty when the manifest sets none. */
  public static List<String> commandOf(String manifest) {
    JsonNode container = etcdContainer(parse(manifest));
    JsonNode command = container.path("command");
    JsonNode args = container.path("args");
    List<String> all = new java.util.ArrayList<>();
    command.forEach(n -> all.add(n.asText()));
    args.forEach(n -> all.add(n.asText()));
    return List.copyOf(all);
  }

  /** The etcd version an image's tag names: {@code registry.k8s.io/etcd:3.5.16-0} is 3.5.16. */
  public static Optional<String> versionOf(String image) {
    String ref = image.contains("@") ? image.substring(0, image.indexOf('@')) : image;
    int colon = ref.lastIndexOf(':');
    if (colon < 0 || colon < ref.lastIndexOf('/')) return Optional.empty();
    return EtcdVersion.ofImageTag(ref.substring(colon + 1)).map(EtcdVersion::toString);
  }

  /**
   * The manifest with the etcd container's image set to newImage. Only the value on the image line
   * changes; every other byte, comments and order included, stays. Fails when that line cannot be
   * found unambiguously.
   */
  public static String withImage(String manifest, String newImage) {
    String old = imageOf(manifest);
    if (old.equals(newImage)) return manifest;
    Pattern line =
        Pattern.compile(
            "(?m)^([ \\t]*(?:-[ \\t]+)?image:[ \\t]*)([\"']?)"
                + Pattern.quote(old)
                + "\\2([ \\t]*(?:#[^\\r\\n]*)?)$");
    Matcher m = line.matcher(manifest);
    if (!m.find())
      throw new IllegalArgumentException("no 'image: " + old + "' line found to change");
    int start = m.start();
    int end = m.end();
    String replacement = m.group(1) + m.group(2) + newImage + m.group(2) + m.group(3);
    if (m.find())
      throw new IllegalArgumentException(
          "more than one 'image: " + old + "' line; change the image by hand");
    String changed = manifest.substring(0, start) + replacement + manifest.substring(end);
    ObjectNode expected = parse(manifest);
    ((ObjectNode) etcdContainer(expected)).put("image", newImage);
    if (!parse(changed).equals(expected) || !imageOf(changed).equals(newImage)) {
      throw new IllegalArgumentException(
          "changing the image line would change more than the image; change it by hand");
    }
    return changed;
  }

  private static ObjectNode parse(String manifest) {
    try {
      JsonNode root = YAML.readTree(manifest);
      if (root instanceof ObjectNode object) return object;
      throw new IllegalArgumentException("the manifest is not a YAML mapping");
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "the manifest is not valid YAML: " + e.getOriginalMessage());
    }
  }

  private static JsonNode etcdContainer(JsonNode pod) {
    JsonNode containers = pod.path("spec").path("containers");
    if (!containers.isArray() || containers.isEmpty())
      throw new IllegalArgumentException("the manifest has no spec.containers");
    for (JsonNode c : containers) {
      if ("etcd".equals(c.path("name").asText())) return c;
    }
    return containers.get(0);
  }
}
