package io.etcdrunbooks.inventory;

/**
 * How members' etcd processes are run.
 *
 * @param kind {@code plain}: a process started with nohup from {@code serviceDir/etcd.env}, tracked
 *     by a pid file; {@code systemd}: a systemd unit, read from the host ({@code systemctl show}):
 *     its ExecStart, environment file and user; {@code static-pod}: a kubelet static pod (kubeadm's
 *     layout) described by {@code manifestPath}
 * @param unit systemd unit name (default etcd)
 * @param manifestPath static-pod: the pod manifest kubelet runs (default {@value
 *     #DEFAULT_MANIFEST_PATH}); may contain {@code {member}}
 * @param stashDir static-pod: where a stopped member's manifest is kept, outside kubelet's
 *     manifests directory (default {@value #DEFAULT_STASH_DIR}); may contain {@code {member}}
 * @param image static-pod: the etcd image of a version, with {@code {version}} and optionally
 *     {@code {imageRepository}} (default {@value #DEFAULT_IMAGE})
 * @param logCommand static-pod: shell command printing the member's last log lines, with {@code
 *     {lines}} and optionally {@code {member}}, which becomes the member's name as one quoted shell
 *     word, so write it outside quotes (default {@value #DEFAULT_LOG_COMMAND})
 * @param sudo static-pod and systemd: run commands on root's files through {@code sudo -n}
 *     (default: when the SSH user is not root)
 * @param imageRepository static-pod: the registry (and path) images are pulled from, kubeadm's
 *     ClusterConfiguration {@code imageRepository}, for example an air-gapped mirror (default
 *     {@value #DEFAULT_IMAGE_REPOSITORY})
 */
public record ServiceSpec(
    String kind,
    String unit,
    String manifestPath,
    String stashDir,
    String image,
    String logCommand,
    Boolean sudo,
    String imageRepository) {

  public static final String PLAIN = "plain";
  public static final String SYSTEMD = "systemd";
  public static final String STATIC_POD = "static-pod";

  public static final String DEFAULT_MANIFEST_PATH = "/etc/kubernetes/manifests/etcd.yaml";
  public static final String DEFAULT_STASH_DIR = "/etc/kubernetes/etcd-runbooks-stopped";
  public static final String DEFAULT_IMAGE_REPOSITORY = "registry.k8s.io";
  public static final String DEFAULT_IMAGE = "{imageRepository}/etcd:{version}-0";
  public static final String DEFAULT_LOG_COMMAND =
      "crictl logs --tail {lines} \"$(crictl ps -a --name etcd -q | head -n 1)\"";

  public ServiceSpec(String kind, String unit) {
    this(kind, unit, null, null, null, null, null, null);
  }

  /** A service pulling from kubeadm's default image repository. */
  public ServiceSpec(
      String kind,
      String unit,
      String manifestPath,
      String stashDir,
      String image,
      String logCommand,
      Boolean sudo) {
    this(kind, unit, manifestPath, stashDir, image, logCommand, sudo, null);
  }

  public static final String DEFAULT_UNIT = "etcd";

  public String effectiveUnit() {
    return orDefault(unit, DEFAULT_UNIT);
  }

  public String effectiveManifestPath() {
    return orDefault(manifestPath, DEFAULT_MANIFEST_PATH);
  }

  public String effectiveStashDir() {
    return orDefault(stashDir, DEFAULT_STASH_DIR);
  }

  public String effectiveImageRepository() {
    return orDefault(imageRepository, DEFAULT_IMAGE_REPOSITORY).replaceAll("/+$", "");
  }

  /** The image template, its repository filled in: {@code registry.k8s.io/etcd:{version}-0}. */
  public String effectiveImage() {
    return orDefault(image, DEFAULT_IMAGE).replace("{imageRepository}", effectiveImageRepository());
  }

  /** The etcd image of a version: {@code registry.k8s.io/etcd:3.5.16-0}. */
  public String imageOf(String version) {
    return effectiveImage().replace("{version}", version);
  }

  public String effectiveLogCommand() {
    return orDefault(logCommand, DEFAULT_LOG_COMMAND);
  }

  private static String orDefault(String value, String fallback) {
    return value == null || value.isBlank() ? fallback : value;
  }
}
