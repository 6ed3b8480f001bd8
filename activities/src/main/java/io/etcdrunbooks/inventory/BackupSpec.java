package io.etcdrunbooks.inventory;

/**
 * How a cluster's backups are stored and kept. Snapshots hold every Kubernetes Secret, so they are
 * encrypted unless {@code encrypt: false} is written out; a cluster without this section gets
 * encrypted backups and must name a key before its first backup.
 *
 * @param encrypt encrypt backups with AES-256-GCM (null: true)
 * @param keyFile file on the worker's host holding the 256-bit key, base64 (openssl rand -base64
 *     32), mode 0600
 * @param keyId name of that key, recorded with every backup so the right key can be found for a
 *     restore
 * @param keepLast retention: newest backups kept (null: 7, at least 1)
 * @param keepDailyDays retention: the newest backup of each of this many days is kept as well
 *     (null: 14)
 * @param intervalMinutes how often the BackupSchedule runbook takes a backup (null: 1440, daily);
 *     read before each wait
 * @param copyTo a host every new backup (encrypted file and metadata) is also copied to over SFTP
 *     (null: none)
 * @param objectStore an S3-compatible bucket every new backup (encrypted file and metadata) is also
 *     uploaded to (null: none)
 * @param schedule whether the worker keeps Temporal Schedules for this cluster, a backup every
 *     {@code intervalMinutes} (null: 60 for the schedule) and a RestoreDrill every {@code
 *     drillIntervalMinutes} (null: true; false: none, and the worker deletes the ones it made)
 * @param drillIntervalMinutes how often the RestoreDrill schedule runs (null: 10080, weekly; 0: no
 *     drill schedule)
 * @param keepEncryptionConfig also keep the kube-apiserver's EncryptionConfiguration file (a
 *     control-plane host's encryptionConfigPath) beside each backup, encrypted as the snapshot is
 *     ({@code <id>.encryption-config.enc}), so that a restore can put it back (null: false; only
 *     with encryption). Its key names are recorded either way
 */
public record BackupSpec(
    Boolean encrypt,
    String keyFile,
    String keyId,
    Integer keepLast,
    Integer keepDailyDays,
    Integer intervalMinutes,
    CopyTo copyTo,
    ObjectStore objectStore,
    Boolean schedule,
    Integer drillIntervalMinutes,
    Boolean keepEncryptionConfig) {

  public BackupSpec(
      Boolean encrypt,
      String keyFile,
      String keyId,
      Integer keepLast,
      Integer keepDailyDays,
      Integer intervalMinutes,
      CopyTo copyTo,
      ObjectStore objectStore) {
    this(
        encrypt,
        keyFile,
        keyId,
        keepLast,
        keepDailyDays,
        intervalMinutes,
        copyTo,
        objectStore,
        null,
        null,
        null);
  }

  public BackupSpec(
      Boolean encrypt,
      String keyFile,
      String keyId,
      Integer keepLast,
      Integer keepDailyDays,
      Integer intervalMinutes,
      CopyTo copyTo) {
    this(encrypt, keyFile, keyId, keepLast, keepDailyDays, intervalMinutes, copyTo, null);
  }

  public BackupSpec(
      Boolean encrypt, String keyFile, String keyId, Integer keepLast, Integer keepDailyDays) {
    this(encrypt, keyFile, keyId, keepLast, keepDailyDays, null, null, null);
  }

  /**
   * An off-site copy target, reached with the cluster's SSH user, key and known_hosts file (its
   * host key must be there).
   *
   * @param host SSH host
   * @param sshPort SSH port (0: the cluster's default)
   * @param dir absolute directory on that host, created when missing
   */
  public record CopyTo(String host, int sshPort, String dir) {}

  /**
   * An S3-compatible bucket backups are uploaded to, under {@code <prefix>/<cluster>/<UTC
   * time>-<id>.db.enc} with the record beside it ({@code .json}).
   *
   * @param bucket bucket name (it must exist)
   * @param prefix key prefix, without leading or trailing '/' (null or empty: none)
   * @param region the bucket's region (null: us-east-1)
   * @param endpoint the store's URL, for stores other than AWS (null: AWS's endpoint for the
   *     region)
   * @param pathStyle address the bucket in the path, not the host name (most non-AWS stores want
   *     it)
   * @param credentialsFile a secret file (mode 0600) in the AWS shared-credentials format whose
   *     [default] profile holds aws_access_key_id and aws_secret_access_key (null: the AWS SDK's
   *     default chain: environment, ~/.aws, instance or container role)
   */
  public record ObjectStore(
      String bucket,
      String prefix,
      String region,
      String endpoint,
      boolean pathStyle,
      String credentialsFile) {

    public static final String DEFAULT_REGION = "us-east-1";

    public String regionOrDefault() {
      return region == null || region.isBlank() ? DEFAULT_REGION : region;
    }
  }

  public static final int DEFAULT_KEEP_LAST = 7;
  public static final int DEFAULT_KEEP_DAILY_DAYS = 14;
  public static final int DEFAULT_INTERVAL_MINUTES = 24 * 60;
  public static final int DEFAULT_SCHEDULE_INTERVAL_MINUTES = 60;
  public static final int DEFAULT_DRILL_INTERVAL_MINUTES = 7 * 24 * 60;

  /**
   * What a cluster without a backup section gets: encrypted, key still to be named, default
   * retention.
   */
  public static final BackupSpec UNSET = new BackupSpec(null, null, null, null, null);

  public boolean keepsEncryptionConfig() {
    return keepEncryptionConfig != null && keepEncryptionConfig;
  }

  public boolean encrypts() {
    return encrypt == null || encrypt;
  }

  public int keepLastOrDefault() {
    return keepLast == null ? DEFAULT_KEEP_LAST : keepLast;
  }

  public int intervalMinutesOrDefault() {
    return intervalMinutes == null ? DEFAULT_INTERVAL_MINUTES : intervalMinutes;
  }

  /**
   * The Temporal Schedule's backup interval: hourly when unset (the BackupSchedule loop it replaces
   * kept its daily default, {@link #intervalMinutesOrDefault}).
   */
  public int scheduleIntervalMinutesOrDefault() {
    return intervalMinutes == null ? DEFAULT_SCHEDULE_INTERVAL_MINUTES : intervalMinutes;
  }

  /** Whether the worker keeps this cluster's Temporal Schedules (on unless {@code false}). */
  public boolean scheduled() {
    return schedule == null || schedule;
  }

  /** The RestoreDrill schedule's interval; 0: no drill schedule. */
  public int drillIntervalMinutesOrDefault() {
    return drillIntervalMinutes == null ? DEFAULT_DRILL_INTERVAL_MINUTES : drillIntervalMinutes;
  }

  public int keepDailyDaysOrDefault() {
    return keepDailyDays == null ? DEFAULT_KEEP_DAILY_DAYS : keepDailyDays;
  }
}
