package io.etcdrunbooks.inventory;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** Reads and validates the inventory YAML; every problem is named with its cluster and member. */
public final class InventoryLoader {

  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory())
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

  private static final java.util.regex.Pattern KEY_ID =
      Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");

  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
  private static final Pattern REGION = Pattern.compile("[a-z0-9][a-z0-9-]{0,39}");

  private InventoryLoader() {}

  /**
   * The inventory with every cluster entry checked: an invalid entry is set apart with its problems
   * ({@link Inventory#invalidClusters()}) and the others are served. Only a file that cannot be
   * read or parsed, or whose releases or fleets are invalid (they concern every cluster), is
   * refused whole.
   */
  public static Inventory load(Path file) {
    String content;
    try {
      content = Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read inventory " + file + ": " + e.getMessage(), e);
    }
    return parse(content, file.toString());
  }

  /**
   * As {@link #load(Path)}, of the inventory's YAML read elsewhere.
   *
   * @param where where it was read, for messages
   */
  public static Inventory parse(String content, String where) {
    RawInventory raw;
    try {
      raw = YAML.readValue(content, RawInventory.class);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read inventory " + where + ": " + e.getMessage(), e);
    }
    List<String> problems = fileProblems(raw.releases(), raw.fleets());
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "inventory " + where + " is invalid:\n  " + String.join("\n  ", problems));
    }
    Map<String, ClusterSpec> valid = new LinkedHashMap<>();
    Map<String, Inventory.InvalidCluster> invalid = new LinkedHashMap<>();
    raw.clusters()
        .forEach(
            (key, entry) -> {
              List<String> clusterProblems;
              try {
                if (entry == null || !entry.isObject())
                  throw new IllegalArgumentException("the entry must be a mapping of its settings");
                ClusterSpec named = withName(key, YAML.treeToValue(entry, ClusterSpec.class));
                clusterProblems = clusterProblems(key, named);
                if (clusterProblems.isEmpty()) valid.put(key, named);
              } catch (IOException | IllegalArgumentException e) {
                // an unknown or mistyped field: this entry cannot be read, the others can
                clusterProblems =
                    List.of(
                        "cluster '"
                            + InventoryFieldRules.printable(key)
                            + "': "
                            + InventoryFieldRules.printable(
                                e.getMessage().lines().findFirst().orElse("")));
              }
              if (!clusterProblems.isEmpty())
                invalid.put(key, new Inventory.InvalidCluster(entry, clusterProblems));
            });
    return new Inventory(raw.releases(), valid, raw.fleets(), invalid);
  }

  /** The file as it is written: every cluster, the invalid ones as they were read. */
  private record RawInventory(
      ReleaseSource releases, Map<String, JsonNode> clusters, Map<String, String> fleets) {
    RawInventory {
      clusters = clusters == null ? Map.of() : clusters;
      fleets = fleets == null ? Map.of() : fleets;
    }

    static RawInventory of(Inventory inventory) {
      Map<String, JsonNode> all = new LinkedHashMap<>();
      inventory.clusters().forEach((name, spec) -> all.put(name, YAML.valueToTree(spec)));
      inventory.invalidClusters().forEach((name, invalid) -> all.put(name, invalid.entry()));
      return new RawInventory(inventory.releases(), all, inventory.fleets());
    }
  }

  /**
   * Writes the whole inventory over {@code file} at once, without asking whether it changed since
   * it was read: for setting one up. Runbooks change it through an {@link InventoryStore}.
   */
  public static void write(Inventory inventory, Path file) {
    try {
      AtomicFiles.replace(file, toYaml(inventory).getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write inventory " + file, e);
    }
  }

  /** The inventory as its file has it: every cluster, the invalid ones as they were read. */
  public static String toYaml(Inventory inventory) {
    try {
      return YAML.writerWithDefaultPrettyPrinter().writeValueAsString(RawInventory.of(inventory));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the inventory as YAML: " + e.getMessage(), e);
    }
  }

  private static ClusterSpec withName(String key, ClusterSpec spec) {
    return new ClusterSpec(
        key,
        spec.members(),
        spec.service(),
        spec.ssh(),
        spec.tls(),
        spec.backupDir(),
        spec.controlPlane(),
        spec.backup(),
        spec.auth(),
        spec.labels(),
        spec.fenced(),
        spec.kubernetes());
  }

  /** What concerns every cluster: where binaries come from, and the fleets' selectors. */
  private static List<String> fileProblems(ReleaseSource releases, Map<String, String> fleets) {
    List<String> problems = new ArrayList<>();
    if (releases == null || (blank(releases.localDir()) && blank(releases.urlTemplate()))) {
      problems.add("releases: set localDir or urlTemplate so that binaries can be installed");
    }
    fleets.forEach(
        (fleet, selector) -> {
          try {
            FleetSelector.parse(selector);
          } catch (IllegalArgumentException e) {
            problems.add("fleet '" + InventoryFieldRules.printable(fleet) + "': " + e.getMessage());
          }
        });
    problems.addAll(InventoryFieldRules.releaseProblems(releases));
    return problems;
  }

  /** What is wrong with one cluster's entry, each problem naming the cluster and member. */
  static List<String> clusterProblems(String name, ClusterSpec c) {
    List<String> problems = new ArrayList<>();
    String where = "cluster '" + InventoryFieldRules.printable(name) + "'";
    if (c.members().isEmpty()) problems.add(where + ": no members");
    if (c.ssh() == null
        || blank(c.ssh().user())
        || blank(c.ssh().privateKeyFile())
        || blank(c.ssh().knownHostsFile())) {
      problems.add(
          where
              + ": ssh needs user, privateKeyFile and knownHostsFile (host keys are always verified)");
    }
    String kind = c.service() == null ? null : c.service().kind();
    if (!(ServiceSpec.PLAIN.equals(kind)
        || ServiceSpec.SYSTEMD.equals(kind)
        || ServiceSpec.STATIC_POD.equals(kind))) {
      problems.add(where + ": service.kind must be 'plain', 'systemd' or 'static-pod'");
    }
    if (ServiceSpec.STATIC_POD.equals(kind)) validateStaticPod(where, c.service(), problems);
    if (blank(c.backupDir()))
      problems.add(where + ": backupDir is required (a backup is taken before every upgrade)");
    if (c.backup() != null) problems.addAll(backupProblems(where, c.backup()));
    if (c.auth() != null && (blank(c.auth().user()) || blank(c.auth().passwordFile()))) {
      problems.add(
          where
              + ": auth needs user and passwordFile (a root user of etcd and the file on this host that holds its password)");
    }
    if (c.kubernetes() != null) problems.addAll(kubernetesProblems(where, c.kubernetes()));
    Set<String> names = new HashSet<>();
    Set<String> urls = new HashSet<>();
    for (MemberSpec m : c.members()) {
      String mw = where + " member '" + InventoryFieldRules.printable(m.name()) + "'";
      if (blank(m.name())) problems.add(where + ": a member has no name");
      else if (!names.add(m.name())) problems.add(mw + ": duplicate name");
      if (blank(m.host())) problems.add(mw + ": host is required");
      for (String url : new String[] {m.clientUrl(), m.peerUrl()}) {
        if (blank(url) || !(url.startsWith("http://") || url.startsWith("https://"))) {
          problems.add(
              mw + ": clientUrl and peerUrl must be http:// or https:// URLs, got '" + url + "'");
        } else if (!urls.add(url)) {
          problems.add(mw + ": URL " + url + " is used twice");
        }
      }
      if (blank(m.dataDir())) problems.add(mw + ": dataDir is required");
      if (!ServiceSpec.STATIC_POD.equals(kind) && blank(m.installDir())) {
        problems.add(mw + ": installDir is required with the plain and systemd service managers");
      }
      if (c.service() != null
          && ServiceSpec.PLAIN.equals(c.service().kind())
          && blank(m.serviceDir())) {
        problems.add(mw + ": serviceDir is required with the plain service manager");
      }
    }
    problems.addAll(InventoryFieldRules.clusterProblems(name, c));
    return problems;
  }

  private static List<String> kubernetesProblems(String where, KubernetesSpec k) {
    List<String> problems = new ArrayList<>();
    if (blank(k.kubeconfig()) || !k.kubeconfig().startsWith("/"))
      problems.add(
          where
              + ": kubernetes.kubeconfig must be the absolute path of a kubeconfig file on the"
              + " worker's host, got '"
              + InventoryFieldRules.printable(String.valueOf(k.kubeconfig()))
              + "'");
    if (k.effectiveMaxNotReadyNodes() < 0)
      problems.add(
          where
              + ": kubernetes.maxNotReadyNodes must not be negative, got "
              + k.maxNotReadyNodes());
    return problems;
  }

  private static void validateStaticPod(String where, ServiceSpec service, List<String> problems) {
    String manifest = service.effectiveManifestPath();
    String stash = service.effectiveStashDir();
    if (!manifest.startsWith("/") || manifest.endsWith("/")) {
      problems.add(
          where + ": service.manifestPath must be an absolute file path, got '" + manifest + "'");
    }
    if (!stash.startsWith("/"))
      problems.add(
          where + ": service.stashDir must be an absolute directory path, got '" + stash + "'");
    String manifestsDir =
        manifest.contains("/") ? manifest.substring(0, manifest.lastIndexOf('/')) : "";
    if (stripSlashes(stash).equals(stripSlashes(manifestsDir))) {
      problems.add(
          where
              + ": service.stashDir must not be the manifests directory "
              + manifestsDir
              + ", kubelet would run what is kept there");
    }
    if (!IMAGE_REPOSITORY.matcher(service.effectiveImageRepository()).matches()) {
      problems.add(
          where
              + ": service.imageRepository must be a registry host (with an optional port) and"
              + " path, as kubeadm's imageRepository, for example registry.k8s.io or"
              + " mirror.example:5000/k8s; got '"
              + service.effectiveImageRepository()
              + "'");
    }
    if (!service.effectiveImage().contains("{version}")) {
      problems.add(
          where + ": service.image must contain {version}, got '" + service.effectiveImage() + "'");
    }
    if (!service.effectiveLogCommand().contains("{lines}")) {
      problems.add(
          where
              + ": service.logCommand must contain {lines}, got '"
              + service.effectiveLogCommand()
              + "'");
    }
  }

  private static final Pattern IMAGE_REPOSITORY =
      Pattern.compile("[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[a-z0-9._-]+)*");

  private static String stripSlashes(String path) {
    return path.replaceAll("/+$", "");
  }

  /**
   * A missing backup section is valid (backups then refuse to run until a key is named); a present
   * one must be whole.
   */
  private static List<String> backupProblems(String where, BackupSpec b) {
    List<String> problems = new ArrayList<>();
    if (b.encrypts()) {
      if (blank(b.keyFile()) || blank(b.keyId())) {
        problems.add(
            where
                + ": backup.keyFile and backup.keyId are required, since backups are encrypted (snapshots hold every"
                + " Secret); write backup.encrypt: false to store them unencrypted");
      }
      if (!blank(b.keyId()) && !KEY_ID.matcher(b.keyId()).matches()) {
        problems.add(
            where
                + ": backup.keyId '"
                + b.keyId()
                + "' must be 1-64 letters, digits, '.', '_' or '-'");
      }
    } else if (!blank(b.keyFile()) || !blank(b.keyId())) {
      problems.add(
          where
              + ": backup.encrypt is false but backup.keyFile or backup.keyId is set; remove them, or set encrypt: true");
    }
    if (b.keepLast() != null && b.keepLast() < 1) {
      problems.add(
          where
              + ": backup.keepLast must be at least 1 (the newest backup is always kept), got "
              + b.keepLast());
    }
    if (b.copyTo() != null
        && (blank(b.copyTo().host())
            || blank(b.copyTo().dir())
            || !b.copyTo().dir().startsWith("/"))) {
      problems.add(where + ": backup.copyTo needs a host and an absolute dir, got " + b.copyTo());
    }
    if (b.objectStore() != null) problems.addAll(objectStoreProblems(where, b.objectStore()));
    if (b.keepsEncryptionConfig() && !b.encrypts()) {
      problems.add(
          where
              + ": backup.keepEncryptionConfig keeps the EncryptionConfiguration's keys beside the"
              + " backup, which needs encrypt: true");
    }
    if (b.intervalMinutes() != null && b.intervalMinutes() < 1) {
      problems.add(
          where + ": backup.intervalMinutes must be at least 1, got " + b.intervalMinutes());
    }
    if (b.drillIntervalMinutes() != null && b.drillIntervalMinutes() < 0) {
      problems.add(
          where
              + ": backup.drillIntervalMinutes must be 0 (no drill schedule) or more, got "
              + b.drillIntervalMinutes());
    }
    if (b.keepDailyDays() != null && b.keepDailyDays() < 0) {
      problems.add(where + ": backup.keepDailyDays must not be negative, got " + b.keepDailyDays());
    }
    return problems;
  }

  private static List<String> objectStoreProblems(String where, BackupSpec.ObjectStore o) {
    List<String> problems = new ArrayList<>();
    if (blank(o.bucket()) || !BUCKET.matcher(o.bucket()).matches()) {
      problems.add(
          where
              + ": backup.objectStore.bucket must be an S3 bucket name (3-63 lower-case letters, digits,"
              + " '.' and '-'), got '"
              + o.bucket()
              + "'");
    }
    if (o.prefix() != null
        && !o.prefix().isEmpty()
        && (o.prefix().startsWith("/") || o.prefix().endsWith("/") || o.prefix().contains("//"))) {
      problems.add(
          where
              + ": backup.objectStore.prefix must not start or end with '/' nor hold '//', got '"
              + o.prefix()
              + "'");
    }
    if (o.region() != null && !REGION.matcher(o.region()).matches()) {
      problems.add(
          where
              + ": backup.objectStore.region must be a region name such as eu-west-1, got '"
              + o.region()
              + "'");
    }
    if (o.endpoint() != null && !plainHttpUrl(o.endpoint())) {
      // never echoed: a URL with user:password@ in it would put a secret in the message
      problems.add(
          where
              + ": backup.objectStore.endpoint must be an http(s)://host[:port] URL without"
              + " credentials in it; credentials go in backup.objectStore.credentialsFile");
    }
    return problems;
  }

  private static boolean plainHttpUrl(String url) {
    try {
      URI uri = new URI(url);
      return ("https".equals(uri.getScheme()) || "http".equals(uri.getScheme()))
          && uri.getHost() != null
          && uri.getUserInfo() == null
          && uri.getQuery() == null;
    } catch (URISyntaxException e) {
      return false;
    }
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
