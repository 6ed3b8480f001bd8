package io.etcdrunbooks.activities.release;

import io.etcdrunbooks.inventory.ReleaseSource;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/** Builds the worker's release store from the inventory's releases section. */
public final class ReleaseStores {

  private ReleaseStores() {}

  /** The local directory first, then the URL template, for each version. */
  public static ReleaseStore from(ReleaseSource source) {
    if (source == null) throw new IllegalArgumentException("the inventory has no releases section");
    List<ReleaseStore> stores = new ArrayList<>();
    if (!blank(source.localDir())) stores.add(new LocalDirReleaseStore(Path.of(source.localDir())));
    if (!blank(source.urlTemplate())) {
      String downloadDir = !blank(source.downloadDir()) ? source.downloadDir() : source.localDir();
      if (blank(downloadDir)) {
        throw new IllegalArgumentException(
            "releases.urlTemplate needs releases.downloadDir (or localDir) to unpack into");
      }
      stores.add(
          new UrlTemplateReleaseStore(source.urlTemplate(), source.sha256(), Path.of(downloadDir)));
    }
    if (stores.isEmpty())
      throw new IllegalArgumentException("releases: set localDir or urlTemplate");
    return stores.size() == 1 ? stores.get(0) : new FirstMatchReleaseStore(stores);
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }

  /**
   * Offers every version any of its stores offers; each version comes from the first store that has
   * it.
   */
  public record FirstMatchReleaseStore(List<ReleaseStore> stores) implements ReleaseStore {

    public FirstMatchReleaseStore {
      stores = List.copyOf(stores);
    }

    @Override
    public List<String> versions() {
      TreeSet<String> all = new TreeSet<>(EtcdVersion.STRING_ORDER);
      stores.forEach(s -> all.addAll(s.versions()));
      return List.copyOf(all);
    }

    @Override
    public Path binDir(String version) {
      for (ReleaseStore store : stores) {
        if (store.versions().contains(version)) return store.binDir(version);
      }
      throw new IllegalArgumentException(
          "etcd "
              + version
              + " is offered by no configured release source (they offer "
              + versions()
              + "); fetch it into releases.localDir or add its SHA-256 to releases.sha256");
    }
  }
}
