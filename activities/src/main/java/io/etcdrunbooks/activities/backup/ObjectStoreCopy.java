package io.etcdrunbooks.activities.backup;

import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.inventory.BackupSpec.ObjectStore;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.BackupRecord;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.AbortMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.ChecksumAlgorithm;
import software.amazon.awssdk.services.s3.model.ChecksumMode;
import software.amazon.awssdk.services.s3.model.CompleteMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.CompletedMultipartUpload;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;
import software.amazon.awssdk.services.s3.model.UploadPartResponse;

/**
 * A kept backup uploaded to the cluster's S3-compatible bucket (backup.objectStore): the stored
 * (encrypted) file under {@code <prefix>/<cluster>/<UTC time>-<file name>}, in parts of at most
 * {@link #partSize} bytes read straight from the file (memory stays small), with its SHA-256 in the
 * object's metadata ({@value #SHA256_METADATA}) and as the store's SHA-256 checksum; the object's
 * size and metadata are read back after the upload. An object already there with the same SHA-256
 * and size is not uploaded again. Then the record, beside it as {@code .json}. The key never goes
 * there, and failures never show the credentials. {@link #fetch} brings a backup back for a
 * restore.
 */
final class ObjectStoreCopy implements RemoteTarget {

  static final String SHA256_METADATA = "sha256";

  /** Failure type of a copy that did not succeed; retryable, the local backup is kept. */
  static final String FAILURE_TYPE = "ObjectStoreCopyFailed";

  static final long DEFAULT_PART_SIZE = 16L << 20;
  private static final long MIN_PART_SIZE = 5L << 20; // S3's smallest part but the last
  private static final DateTimeFormatter KEY_TIME =
      DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

  private static final Logger log = LoggerFactory.getLogger(ObjectStoreCopy.class);

  private final long partSize;

  ObjectStoreCopy(long partSize) {
    if (partSize < MIN_PART_SIZE)
      throw new IllegalArgumentException("part size must be at least " + MIN_PART_SIZE);
    this.partSize = partSize;
  }

  /** Object key of a stored backup file; its record's is the same with {@code .json}. */
  static String objectKey(ObjectStore store, BackupRecord record, String fileName) {
    String prefix = store.prefix() == null || store.prefix().isEmpty() ? "" : store.prefix() + "/";
    return prefix
        + record.cluster()
        + "/"
        + KEY_TIME.format(Instant.parse(record.takenAt()))
        + "-"
        + fileName;
  }

  /** "s3://bucket/key" of the copy. */
  String copy(ClusterSpec spec, BackupRecord record, Path stored, Path metadata) {
    ObjectStore store = spec.backupSettings().objectStore();
    String key = objectKey(store, record, stored.getFileName().toString());
    String recordKey = objectKey(store, record, record.id() + ".json");
    String where = "s3://" + store.bucket() + "/" + key;
    try (S3Client s3 = client(spec, store)) {
      ChecksumSupport checksums = new ChecksumSupport(store.bucket());
      if (alreadyThere(s3, store.bucket(), key, record.sha256(), record.sizeBytes())) {
        log.info("backup {} of cluster {}: {} is there already", record.id(), spec.name(), where);
      } else {
        Heartbeats.beat("uploading backup " + record.id() + " to " + where);
        checksums.send(with -> upload(s3, store.bucket(), key, record, stored, with));
        checkUploaded(
            s3,
            store.bucket(),
            key,
            record.id(),
            record.sha256(),
            record.sizeBytes(),
            checksums.supported());
      }
      Optional<String> config = EncryptionConfigs.fileName(record);
      if (config.isPresent())
        putChecked(s3, store, record, stored.resolveSibling(config.get()), checksums);
      String recordSha256 = sha256(metadata);
      checksums.send(
          with ->
              s3.putObject(
                  b -> {
                    b.bucket(store.bucket()).key(recordKey).contentType("application/json");
                    if (with) {
                      b.checksumAlgorithm(ChecksumAlgorithm.SHA256)
                          .checksumSHA256(base64(recordSha256));
                    }
                  },
                  RequestBody.fromFile(metadata)));
      log.info("backup {} of cluster {} uploaded to {}", record.id(), spec.name(), where);
      return where;
    } catch (S3Exception e) {
      throw failure("upload", spec, record.id(), store, where, describe(e), e);
    } catch (SdkException | UncheckedIOException e) {
      // the SDK's own messages name the endpoint and what failed, never the credentials
      throw failure("upload", spec, record.id(), store, where, e.getMessage(), e);
    }
  }

  /**
   * Sends requests with SHA-256 checksums until the store answers one with 501 Not Implemented
   * (s3proxy, older MinIO), then without: the SHA-256 metadata and the size read back still check
   * the copy.
   */
  private static final class ChecksumSupport {
    private final String bucket;
    private boolean supported = true;

    ChecksumSupport(String bucket) {
      this.bucket = bucket;
    }

    void send(Consumer<Boolean> request) {
      if (supported) {
        try {
          request.accept(true);
          return;
        } catch (S3Exception e) {
          if (e.statusCode() != 501) throw e;
          supported = false;
          log.info("the store of bucket {} takes no SHA-256 checksums; sending without", bucket);
        }
      }
      request.accept(false);
    }

    boolean supported() {
      return supported;
    }
  }

  private static String sha256(Path file) {
    try {
      return StoredBackups.sha256(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * The backup's kept EncryptionConfiguration beside its object, checked the same way; it is small,
   * so in one request.
   */
  private static void putChecked(
      S3Client s3, ObjectStore store, BackupRecord record, Path local, ChecksumSupport checksums) {
    String key = objectKey(store, record, local.getFileName().toString());
    String sha256 = EncryptionConfigs.expectedSha256(record, local);
    long size;
    try {
      size = Files.size(local);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + local + ": " + e.getMessage(), e);
    }
    if (alreadyThere(s3, store.bucket(), key, sha256, size)) return;
    checksums.send(
        with ->
            s3.putObject(
                b -> {
                  b.bucket(store.bucket())
                      .key(key)
                      .contentLength(size)
                      .metadata(Map.of(SHA256_METADATA, sha256));
                  if (with)
                    b.checksumAlgorithm(ChecksumAlgorithm.SHA256).checksumSHA256(base64(sha256));
                },
                RequestBody.fromFile(local)));
    checkUploaded(s3, store.bucket(), key, record.id(), sha256, size, checksums.supported());
  }

  private void upload(
      S3Client s3, String bucket, String key, BackupRecord record, Path stored, boolean checksums) {
    if (record.sizeBytes() > partSize) {
      multipartUpload(s3, bucket, key, record, stored, checksums);
      return;
    }
    s3.putObject(
        b -> {
          b.bucket(bucket)
              .key(key)
              .contentLength(record.sizeBytes())
              .metadata(Map.of(SHA256_METADATA, record.sha256()));
          if (checksums)
            b.checksumAlgorithm(ChecksumAlgorithm.SHA256).checksumSHA256(base64(record.sha256()));
        },
        RequestBody.fromContentProvider(
            () -> uploading(record, 0, uncheckedOpen(stored)),
            record.sizeBytes(),
            "application/octet-stream"));
  }

  /** The body of an upload, heartbeating as the network takes it. */
  private static InputStream uploading(BackupRecord record, long offset, InputStream body) {
    long size = record.sizeBytes();
    return new ProgressInputStream(
        body,
        read ->
            Heartbeats.beat(
                "uploading backup "
                    + record.id()
                    + ": "
                    + ((offset + read) >> 20)
                    + " of "
                    + (size >> 20)
                    + " MB"));
  }

  private static InputStream uncheckedOpen(Path file) {
    try {
      return Files.newInputStream(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Brings backup {@code id} of the cluster from its bucket into {@code dir} when the bucket has
   * it: the file under a temporary name, its SHA-256 and size checked against the record while it
   * streams, renamed, then the record (last, so a download cut short is never a kept backup).
   * Returns false when the bucket holds no backup with this id.
   */
  @Override
  public boolean fetch(ClusterSpec spec, String id, Path dir) {
    ObjectStore store = spec.backupSettings().objectStore();
    String clusterPrefix = clusterPrefix(spec, store);
    Pattern recordName = Pattern.compile("\\d{8}T\\d{6}Z-" + Pattern.quote(id) + "\\.json");
    String where = "s3://" + store.bucket() + "/" + clusterPrefix;
    try (S3Client s3 = client(spec, store)) {
      List<String> records =
          s3
              .listObjectsV2Paginator(b -> b.bucket(store.bucket()).prefix(clusterPrefix))
              .contents()
              .stream()
              .map(S3Object::key)
              .filter(k -> recordName.matcher(k.substring(clusterPrefix.length())).matches())
              .sorted()
              .toList();
      if (records.isEmpty()) return false;
      String recordKey = records.get(records.size() - 1);
      byte[] json = s3.getObjectAsBytes(b -> b.bucket(store.bucket()).key(recordKey)).asByteArray();
      BackupRecord record = StoredBackups.JSON.readValue(json, BackupRecord.class);
      String fileName = Path.of(record.path()).getFileName().toString();
      if (!id.equals(record.id())
          || !spec.name().equals(record.cluster())
          || !(fileName.equals(id + ".db.enc") || fileName.equals(id + ".db"))) {
        throw FailureType.BackupCorrupt.nonRetryable(
            "s3://"
                + store.bucket()
                + "/"
                + recordKey
                + " is the record of backup '"
                + record.id()
                + "' of cluster '"
                + record.cluster()
                + "', not of backup '"
                + id
                + "' of '"
                + spec.name()
                + "' (or it names another file: "
                + fileName
                + ")");
      }
      Optional<String> config = EncryptionConfigs.fileName(record);
      String key = objectKey(store, record, fileName);
      Files.createDirectories(dir);
      Path part = dir.resolve(fileName + ".download.part");
      Files.deleteIfExists(part);
      Files.createFile(part, StoredBackups.PRIVATE);
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      long size = 0;
      try (InputStream in = s3.getObject(b -> b.bucket(store.bucket()).key(key));
          OutputStream out = new DigestOutputStream(Files.newOutputStream(part), digest)) {
        byte[] buffer = new byte[1 << 20];
        for (int n; (n = in.read(buffer)) >= 0; ) {
          out.write(buffer, 0, n);
          size += n;
          Heartbeats.beat("downloading backup " + id + ": " + (size >> 20) + " MB");
        }
      }
      String sha256 = HexFormat.of().formatHex(digest.digest());
      if (size != record.sizeBytes() || !sha256.equals(record.sha256())) {
        Files.deleteIfExists(part);
        throw FailureType.BackupCorrupt.nonRetryable(
            "backup "
                + id
                + " of cluster '"
                + spec.name()
                + "' in s3://"
                + store.bucket()
                + "/"
                + key
                + " has "
                + size
                + " bytes and SHA-256 "
                + sha256
                + ", its record says "
                + record.sizeBytes()
                + " bytes and "
                + record.sha256()
                + "; nothing was restored from it");
      }
      if (config.isPresent()) {
        try {
          fetchChecked(s3, spec, store, record, config.get(), dir);
        } catch (RuntimeException | IOException e) {
          Files.deleteIfExists(part);
          throw e;
        }
      }
      Files.move(part, dir.resolve(fileName), StandardCopyOption.ATOMIC_MOVE);
      Path metadata = dir.resolve(id + ".json");
      Path tmp = dir.resolve(id + ".json.download.part");
      Files.deleteIfExists(tmp);
      Files.createFile(tmp, StoredBackups.PRIVATE);
      Files.write(tmp, json);
      Files.move(tmp, metadata, StandardCopyOption.ATOMIC_MOVE);
      log.info(
          "backup {} of cluster {} downloaded from s3://{}/{} into {}",
          id,
          spec.name(),
          store.bucket(),
          key,
          dir);
      return true;
    } catch (S3Exception e) {
      throw failure("download", spec, id, store, where, describe(e), e);
    } catch (SdkException e) {
      throw failure("download", spec, id, store, where, e.getMessage(), e);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "backup " + id + " of cluster '" + spec.name() + "' into " + dir + ": " + e.getMessage(),
          e);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * The backup's kept EncryptionConfiguration into {@code dir} the same way: under a temporary
   * name, renamed once its SHA-256 is the record's (a record written before that was recorded names
   * none: the file's own authentication tag is checked when it is decrypted).
   */
  private static void fetchChecked(
      S3Client s3,
      ClusterSpec spec,
      ObjectStore store,
      BackupRecord record,
      String fileName,
      Path dir)
      throws IOException {
    String key = objectKey(store, record, fileName);
    String where = "s3://" + store.bucket() + "/" + key;
    Path part = dir.resolve(fileName + ".download.part");
    Files.deleteIfExists(part);
    Files.createFile(part, StoredBackups.PRIVATE);
    try (InputStream in = s3.getObject(b -> b.bucket(store.bucket()).key(key));
        OutputStream out = Files.newOutputStream(part)) {
      in.transferTo(out);
    } catch (S3Exception e) {
      Files.deleteIfExists(part);
      if (e.statusCode() != 404) throw e;
      throw EncryptionConfigs.missingOn(spec, record, where);
    }
    EncryptionConfigs.keepDownloaded(spec, record, part, dir.resolve(fileName), where);
  }

  private static String clusterPrefix(ClusterSpec spec, ObjectStore store) {
    return (store.prefix() == null || store.prefix().isEmpty() ? "" : store.prefix() + "/")
        + spec.name()
        + "/";
  }

  @Override
  public boolean configuredFor(ClusterSpec spec) {
    return spec.backupSettings().objectStore() != null;
  }

  @Override
  public String where(ClusterSpec spec) {
    ObjectStore store = spec.backupSettings().objectStore();
    return "s3://" + store.bucket() + "/" + clusterPrefix(spec, store);
  }

  /**
   * The cluster's backups in the bucket: each record under {@code <prefix>/<cluster>/<UTC
   * time>-<id>.json} that names this cluster; verified when its file is beside it with the recorded
   * size. Keys of any other layout are not ours and never listed.
   */
  @Override
  public List<RemoteBackup> list(ClusterSpec spec) {
    ObjectStore store = spec.backupSettings().objectStore();
    String clusterPrefix = clusterPrefix(spec, store);
    String where = where(spec);
    Pattern recordName = Pattern.compile("\\d{8}T\\d{6}Z-[A-Za-z0-9][A-Za-z0-9._-]*\\.json");
    try (S3Client s3 = client(spec, store)) {
      Map<String, Long> sizes = new java.util.HashMap<>();
      s3.listObjectsV2Paginator(b -> b.bucket(store.bucket()).prefix(clusterPrefix))
          .contents()
          .forEach(o -> sizes.put(o.key(), o.size()));
      List<RemoteBackup> backups = new ArrayList<>();
      for (String key : sizes.keySet().stream().sorted().toList()) {
        String name = key.substring(clusterPrefix.length());
        if (!recordName.matcher(name).matches()) continue;
        String json = s3.getObjectAsBytes(b -> b.bucket(store.bucket()).key(key)).asUtf8String();
        BackupRecord record = RemoteBackup.ours(spec, json, name, where);
        if (record == null || !key.equals(objectKey(store, record, record.id() + ".json")))
          continue;
        Long size =
            sizes.get(objectKey(store, record, Path.of(record.path()).getFileName().toString()));
        backups.add(new RemoteBackup(record, json, size != null && size == record.sizeBytes()));
      }
      return backups;
    } catch (S3Exception e) {
      throw failure("list", spec, "", store, where, describe(e), e);
    } catch (SdkException e) {
      throw failure("list", spec, "", store, where, e.getMessage(), e);
    }
  }

  @Override
  public void delete(ClusterSpec spec, RemoteBackup backup) {
    ObjectStore store = spec.backupSettings().objectStore();
    BackupRecord record = backup.record();
    String key = objectKey(store, record, backup.fileName());
    try (S3Client s3 = client(spec, store)) {
      s3.deleteObject(b -> b.bucket(store.bucket()).key(key));
      Optional<String> config = EncryptionConfigs.fileName(record);
      if (config.isPresent())
        s3.deleteObject(b -> b.bucket(store.bucket()).key(objectKey(store, record, config.get())));
      s3.deleteObject(
          b -> b.bucket(store.bucket()).key(objectKey(store, record, record.id() + ".json")));
    } catch (S3Exception e) {
      throw failure("delete", spec, record.id(), store, where(spec), describe(e), e);
    } catch (SdkException e) {
      throw failure("delete", spec, record.id(), store, where(spec), e.getMessage(), e);
    }
  }

  private static boolean alreadyThere(
      S3Client s3, String bucket, String key, String sha256, long size) {
    try {
      HeadObjectResponse head = s3.headObject(b -> b.bucket(bucket).key(key));
      return head.contentLength() == size && sha256.equals(head.metadata().get(SHA256_METADATA));
    } catch (S3Exception e) {
      if (e.statusCode() == 404) return false;
      throw e;
    }
  }

  private void multipartUpload(
      S3Client s3, String bucket, String key, BackupRecord record, Path stored, boolean checksums) {
    ChecksumAlgorithm algorithm = checksums ? ChecksumAlgorithm.SHA256 : null;
    String uploadId =
        s3.createMultipartUpload(
                b ->
                    b.bucket(bucket)
                        .key(key)
                        .metadata(Map.of(SHA256_METADATA, record.sha256()))
                        .checksumAlgorithm(algorithm))
            .uploadId();
    try {
      List<CompletedPart> parts = new ArrayList<>();
      long size = record.sizeBytes();
      for (long offset = 0; offset < size; offset += partSize) {
        int number = parts.size() + 1;
        long length = Math.min(partSize, size - offset);
        long from = offset;
        UploadPartResponse part =
            s3.uploadPart(
                b ->
                    b.bucket(bucket)
                        .key(key)
                        .uploadId(uploadId)
                        .partNumber(number)
                        .contentLength(length)
                        .checksumAlgorithm(algorithm),
                RequestBody.fromContentProvider(
                    () -> uploading(record, from, FileRange.open(stored, from, length)),
                    length,
                    "application/octet-stream"));
        parts.add(
            CompletedPart.builder()
                .partNumber(number)
                .eTag(part.eTag())
                .checksumSHA256(part.checksumSHA256())
                .build());
      }
      s3.completeMultipartUpload(
          CompleteMultipartUploadRequest.builder()
              .bucket(bucket)
              .key(key)
              .uploadId(uploadId)
              .multipartUpload(CompletedMultipartUpload.builder().parts(parts).build())
              .build());
    } catch (RuntimeException e) {
      abort(s3, bucket, key, uploadId);
      throw e;
    }
  }

  private static void abort(S3Client s3, String bucket, String key, String uploadId) {
    try {
      s3.abortMultipartUpload(
          AbortMultipartUploadRequest.builder().bucket(bucket).key(key).uploadId(uploadId).build());
    } catch (SdkException e) {
      log.warn("could not abort the multipart upload of {}: {}", key, e.getMessage());
    }
  }

  /**
   * The object as the store now has it: its size and SHA-256 metadata, and the store's own SHA-256
   * when it keeps one for the whole object (a multipart upload's is of its parts' checksums).
   */
  private static void checkUploaded(
      S3Client s3,
      String bucket,
      String key,
      String id,
      String expectedSha256,
      long expectedSize,
      boolean checksums) {
    HeadObjectResponse head =
        s3.headObject(
            b -> b.bucket(bucket).key(key).checksumMode(checksums ? ChecksumMode.ENABLED : null));
    String sha256 = head.metadata().get(SHA256_METADATA);
    String storeSha256 = head.checksumSHA256();
    boolean wholeObjectChecksum = storeSha256 != null && !storeSha256.contains("-");
    if (head.contentLength() != expectedSize
        || !expectedSha256.equals(sha256)
        || (wholeObjectChecksum && !base64(expectedSha256).equals(storeSha256))) {
      s3.deleteObject(b -> b.bucket(bucket).key(key));
      throw ApplicationFailure.newFailure(
          "the copy s3://"
              + bucket
              + "/"
              + key
              + " of backup "
              + id
              + " has "
              + head.contentLength()
              + " bytes and SHA-256 "
              + sha256
              + (wholeObjectChecksum ? " (store's checksum " + storeSha256 + ")" : "")
              + ", not "
              + expectedSize
              + " bytes and "
              + expectedSha256
              + "; it was removed and is uploaded again",
          FAILURE_TYPE);
    }
  }

  private static S3Client client(ClusterSpec spec, ObjectStore store) {
    var builder =
        S3Client.builder()
            .httpClientBuilder(UrlConnectionHttpClient.builder())
            // checksums only where this class asks for SHA-256 (the SDK's default adds CRC32
            // trailers, which not every S3-compatible store reads)
            .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
            .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
            .region(Region.of(store.regionOrDefault()))
            .forcePathStyle(store.pathStyle())
            .credentialsProvider(ObjectStoreCredentials.provider(spec.name(), store));
    if (store.endpoint() != null) builder.endpointOverride(URI.create(store.endpoint()));
    return builder.build();
  }

  /** What the store said: its error code and HTTP status, not its whole message. */
  private static String describe(S3Exception e) {
    String code = e.awsErrorDetails() == null ? null : e.awsErrorDetails().errorCode();
    String hint =
        switch (e.statusCode()) {
          case 401, 403 ->
              "; check the credentials (backup.objectStore.credentialsFile or the worker's AWS"
                  + " environment) and that they may write to the bucket";
          case 404 -> "; check that the bucket exists (it is not created)";
          default -> "";
        };
    return "the store answered HTTP " + e.statusCode() + (code == null ? "" : " " + code) + hint;
  }

  private static ApplicationFailure failure(
      String verb,
      ClusterSpec spec,
      String id,
      ObjectStore store,
      String where,
      String why,
      Exception cause) {
    // the cause is not attached: the SDK's exceptions may carry request details
    return ApplicationFailure.newFailure(
        "cannot "
            + verb
            + (id.isEmpty() ? " the backups" : " backup " + id)
            + " of cluster '"
            + spec.name()
            + "' to bucket '"
            + store.bucket()
            + "' ("
            + where
            + "): "
            + why
            + switch (verb) {
              case "upload" -> "; the backup is kept on the worker and the upload is retried";
              case "download", "list" -> "; retried, nothing was stopped";
              default -> "; retried, the worker's own backups are untouched";
            },
        FAILURE_TYPE,
        cause.getClass().getName());
  }

  static String base64(String hexSha256) {
    return Base64.getEncoder().encodeToString(HexFormat.of().parseHex(hexSha256));
  }
}
