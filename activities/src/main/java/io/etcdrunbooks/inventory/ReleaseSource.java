package io.etcdrunbooks.inventory;

import java.util.Map;

/**
 * Where etcd binaries come from.
 *
 * @param localDir a directory holding {@code <version>/bin/etcd} (and etcdctl, etcdutl), as
 *     deploy/scripts/fetch-etcd.sh lays it out
 * @param urlTemplate release tarball URL with {version}, for example
 *     https://mirror.example/etcd/v{version}/etcd-v{version}-linux-amd64.tar.gz; used for versions
 *     not in localDir
 * @param sha256 expected SHA-256 of each version's tarball; a tarball without one is refused
 * @param downloadDir where downloaded releases are unpacked (defaults to localDir)
 */
public record ReleaseSource(
    String localDir, String urlTemplate, Map<String, String> sha256, String downloadDir) {

  public ReleaseSource {
    sha256 = sha256 == null ? Map.of() : Map.copyOf(sha256);
  }
}
