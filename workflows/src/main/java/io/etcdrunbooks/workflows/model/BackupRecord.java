package io.etcdrunbooks.workflows.model;

import java.util.List;

/**
 * A verified snapshot, as kept beside its file in the cluster's backup directory. Built by name
 * ({@link #builder()}, {@link #toBuilder()}): the canonical constructor is Jackson's, and a field
 * added later is left out of the records written before it (read as its default).
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
    List<String> encryptionKeys,
    String encryptionConfigFile,
    String encryptionConfigSha256) {

  public BackupRecord {
    encryptionKeys = encryptionKeys == null ? List.of() : List.copyOf(encryptionKeys);
    encryptionConfigFile = encryptionConfigFile == null ? "" : encryptionConfigFile;
    encryptionConfigSha256 = encryptionConfigSha256 == null ? "" : encryptionConfigSha256;
  }

  /**
   * A record to fill by name. Not set: numbers 0, not encrypted, {@code keyId} and the
   * EncryptionConfiguration's fields empty, the other strings and the keyspace hash null.
   */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder holding this record's fields, to change some of them. */
  public Builder toBuilder() {
    return new Builder()
        .id(id)
        .cluster(cluster)
        .member(member)
        .etcdVersion(etcdVersion)
        .revision(revision)
        .hash(hash)
        .keyCount(keyCount)
        .sizeBytes(sizeBytes)
        .sha256(sha256)
        .path(path)
        .takenAt(takenAt)
        .encrypted(encrypted)
        .keyId(keyId)
        .liveKeys(liveKeys)
        .keyspaceHash(keyspaceHash)
        .encryptionKeys(encryptionKeys)
        .encryptionConfigFile(encryptionConfigFile)
        .encryptionConfigSha256(encryptionConfigSha256);
  }

  /**
   * This record with the EncryptionConfiguration's key names, and the kept file with its SHA-256
   * (both empty when not kept).
   */
  public BackupRecord withEncryptionConfig(List<String> keys, String file, String fileSha256) {
    return toBuilder()
        .encryptionKeys(keys)
        .encryptionConfigFile(file)
        .encryptionConfigSha256(fileSha256)
        .build();
  }

  /** Sets a {@link BackupRecord}'s fields by name; see the record for what each means. */
  public static final class Builder {
    private String id;
    private String cluster;
    private String member;
    private String etcdVersion;
    private long revision;
    private long hash;
    private long keyCount;
    private long sizeBytes;
    private String sha256;
    private String path;
    private String takenAt;
    private boolean encrypted;
    private String keyId = "";
    private long liveKeys;
    private KeyspaceHash keyspaceHash;
    private List<String> encryptionKeys = List.of();
    private String encryptionConfigFile = "";
    private String encryptionConfigSha256 = "";

    private Builder() {}

    public Builder id(String id) {
      this.id = id;
      return this;
    }

    public Builder cluster(String cluster) {
      this.cluster = cluster;
      return this;
    }

    public Builder member(String member) {
      this.member = member;
      return this;
    }

    public Builder etcdVersion(String etcdVersion) {
      this.etcdVersion = etcdVersion;
      return this;
    }

    public Builder revision(long revision) {
      this.revision = revision;
      return this;
    }

    public Builder hash(long hash) {
      this.hash = hash;
      return this;
    }

    public Builder keyCount(long keyCount) {
      this.keyCount = keyCount;
      return this;
    }

    public Builder sizeBytes(long sizeBytes) {
      this.sizeBytes = sizeBytes;
      return this;
    }

    public Builder sha256(String sha256) {
      this.sha256 = sha256;
      return this;
    }

    public Builder path(String path) {
      this.path = path;
      return this;
    }

    public Builder takenAt(String takenAt) {
      this.takenAt = takenAt;
      return this;
    }

    public Builder encrypted(boolean encrypted) {
      this.encrypted = encrypted;
      return this;
    }

    public Builder keyId(String keyId) {
      this.keyId = keyId;
      return this;
    }

    public Builder liveKeys(long liveKeys) {
      this.liveKeys = liveKeys;
      return this;
    }

    public Builder keyspaceHash(KeyspaceHash keyspaceHash) {
      this.keyspaceHash = keyspaceHash;
      return this;
    }

    public Builder encryptionKeys(List<String> encryptionKeys) {
      this.encryptionKeys = encryptionKeys;
      return this;
    }

    public Builder encryptionConfigFile(String encryptionConfigFile) {
      this.encryptionConfigFile = encryptionConfigFile;
      return this;
    }

    public Builder encryptionConfigSha256(String encryptionConfigSha256) {
      this.encryptionConfigSha256 = encryptionConfigSha256;
      return this;
    }

    public BackupRecord build() {
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
          encryptionKeys,
          encryptionConfigFile,
          encryptionConfigSha256);
    }
  }
}
