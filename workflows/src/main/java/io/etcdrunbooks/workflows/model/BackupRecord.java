package io.etcdrunbooks.workflows.model;

/**
 * A verified snapshot, as kept beside its file in the cluster's backup directory.
 *
 * @param id backup id (unique per cluster)
 * @param cluster cluster name
 * @param member member the snapshot was streamed from
 * @param etcdVersion server version of that member
 * @param revision revision inside the snapshot
 * @param hash snapshot hash as etcd's own tool reads it from the file
 * @param keyCount total keys as etcd's own tool reads it from the file (up to 3.5 every stored
 *     revision and bookkeeping entry, from 3.6 on the keys alive at {@code revision})
 * @param sizeBytes size of the file as stored (encrypted when {@code encrypted})
 * @param sha256 SHA-256 of the file as stored (of the encrypted file when {@code encrypted})
 * @param path where the file is kept (on the worker's host)
 * @param takenAt ISO-8601 time the snapshot was taken
 * @param encrypted the file is AES-256-GCM encrypted (etcd-runbooks' chunked format); false for
 *     plaintext snapshots
 * @param keyId id of the key it is encrypted with (empty when not encrypted); never the key itself
 * @param liveKeys keys alive at {@code revision}, as the cluster counted them when the backup was
 *     taken (0 in backups taken before this was recorded, or when that revision was already
 *     compacted)
 * @param keyspaceHash etcd's hashkv of the member the snapshot came from at {@code revision}, read
 *     right after the snapshot; what a restore drill compares a restored copy with (null in backups
 *     taken before this was recorded, or when that revision was already compacted)
 * @param encryptionKeys the kube-apiserver's EncryptionConfiguration when the backup was taken:
 *     "aescbc/key1" per provider and key name, "identity" for the identity provider; never key
 *     material (empty: the inventory names no such file)
 * @param encryptionConfigFile that file, kept beside the backup encrypted as the snapshot is
 *     (empty: not kept)
 * @param encryptionConfigSha256 SHA-256 of that file as kept (encrypted), checked after it is
 *     copied off-site or uploaded and when it is brought back (empty: not kept, or kept before this
 *     was recorded)
 */
public record BackupRecord(
    String id,
    String cluster,
    String member,
    String etcdVersion,
    long revision,
    long hash,
    long keyCount,
    long sizeBytes,
    String sha256,
    String path,
    String takenAt,
    boolean encrypted,
    String keyId,
    long liveKeys,
    KeyspaceHash keyspaceHash,
    java.util.List<String> encryptionKeys,
    String encryptionConfigFile,
    String encryptionConfigSha256) {

  public BackupRecord {
    encryptionKeys =
        encryptionKeys == null ? java.util.List.of() : java.util.List.copyOf(encryptionKeys);
    encryptionConfigFile = encryptionConfigFile == null ? "" : encryptionConfigFile;
    encryptionConfigSha256 = encryptionConfigSha256 == null ? "" : encryptionConfigSha256;
  }

  /** A backup whose kept EncryptionConfiguration's SHA-256 is not recorded. */
  public BackupRecord(
      String id,
      String cluster,
      String member,
      String etcdVersion,
      long revision,
      long hash,
      long keyCount,
      long sizeBytes,
      String sha256,
      String path,
      String takenAt,
      boolean encrypted,
      String keyId,
      long liveKeys,
      KeyspaceHash keyspaceHash,
      java.util.List<String> encryptionKeys,
      String encryptionConfigFile) {
    this(
        id,
        cluster,
        member,
        etcdVersion,
        revision,
        hash,
        keyCount,
        sizeBytes,
        sha256,
        path,
        takenAt,
        encrypted,
        keyId,
        liveKeys,
        keyspaceHash,
        encryptionKeys,
        encryptionConfigFile,
        "");
  }

  /** A backup without the kube-apiserver's EncryptionConfiguration recorded. */
  public BackupRecord(
      String id,
      String cluster,
      String member,
      String etcdVersion,
      long revision,
      long hash,
      long keyCount,
      long sizeBytes,
      String sha256,
      String path,
      String takenAt,
      boolean encrypted,
      String keyId,
      long liveKeys,
      KeyspaceHash keyspaceHash) {
    this(
        id,
        cluster,
        member,
        etcdVersion,
        revision,
        hash,
        keyCount,
        sizeBytes,
        sha256,
        path,
        takenAt,
        encrypted,
        keyId,
        liveKeys,
        keyspaceHash,
        java.util.List.of(),
        "",
        "");
  }

  /**
   * This record with the EncryptionConfiguration's key names, and the kept file with its SHA-256
   * (both empty when not kept).
   */
  public BackupRecord withEncryptionConfig(
      java.util.List<String> keys, String file, String fileSha256) {
    return new BackupRecord(
        id,
        cluster,
        member,
        etcdVersion,
        revision,
        hash,
        keyCount,
        sizeBytes,
        sha256,
        path,
        takenAt,
        encrypted,
        keyId,
        liveKeys,
        keyspaceHash,
        keys,
        file,
        fileSha256);
  }
}
