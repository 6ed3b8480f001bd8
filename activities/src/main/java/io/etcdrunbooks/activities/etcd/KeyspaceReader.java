package io.etcdrunbooks.activities.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.options.GetOption;
import io.etcdrunbooks.workflows.model.KeyspaceDigest;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Consumer;

/**
 * Reads the whole keyspace at one revision page by page, in key order, and hashes it. Each page
 * asks for about {@link #PAGE_BYTES} of keys and values, sized from the page before (etcd has no
 * byte limit on a range: a page of 1000 keys of 512 KiB each is a 500 MB reply that etcd builds in
 * its memory whatever the client does with it). A page whose reply is still too large for the
 * client is retried with half as many keys.
 */
public final class KeyspaceReader {

  public static final int DEFAULT_PAGE_KEYS = 1000;

  /** What a page should hold, keys and values together. */
  static final long PAGE_BYTES = 4L << 20;

  /** The first page, before any size is known: 64 Kubernetes objects of the largest size. */
  static final int FIRST_PAGE_KEYS = 64;

  private static final ByteSequence FIRST_KEY = ByteSequence.from(new byte[] {0});

  /** As a range end, "\0" means every key from the start key on. */
  private static final ByteSequence TO_THE_END = ByteSequence.from(new byte[] {0});

  private static final Duration PAGE_TIMEOUT = Duration.ofSeconds(30);

  private final KV kv;
  private final int pageKeys;

  public KeyspaceReader(KV kv) {
    this(kv, DEFAULT_PAGE_KEYS);
  }

  public KeyspaceReader(KV kv, int pageKeys) {
    this.kv = kv;
    this.pageKeys = pageKeys;
  }

  /**
   * SHA-256 over every key at {@code revision} (0: the current revision, which the digest then
   * names). Each key-value is hashed as: key length (int) and bytes, value length (int) and bytes,
   * then create revision, mod revision, version and lease (longs), all big-endian.
   *
   * @param progress told "N keys at revision R" after each page
   */
  public KeyspaceDigest digest(long revision, Consumer<String> progress) {
    MessageDigest sha256 = sha256();
    try (DataOutputStream out =
        new DataOutputStream(new DigestOutputStream(OutputStream.nullOutputStream(), sha256))) {
      Visited visited =
          visit(
              revision,
              kv -> {
                try {
                  write(out, kv);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              },
              progress);
      out.flush();
      return new KeyspaceDigest(
          visited.revision(), visited.keys(), HexFormat.of().formatHex(sha256.digest()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** How many keys a {@link #visit} saw, at which revision. */
  public record Visited(long revision, long keys) {}

  /**
   * Hands every key at {@code revision} (0: the current revision) to {@code each}, in key order, a
   * page at a time; fails when the keys read are not as many as etcd counted.
   *
   * @param progress told "N keys at revision R" after each page
   */
  public Visited visit(long revision, Consumer<KeyValue> each, Consumer<String> progress) {
    long atRevision = revision;
    long expectedCount = -1;
    long count = 0;
    ByteSequence from = FIRST_KEY;
    int limit = Math.min(FIRST_PAGE_KEYS, pageKeys);
    while (true) {
      GetResponse page;
      try {
        page = readPage(from, limit, atRevision);
      } catch (EtcdCallException e) {
        if (e.isResourceExhausted() && limit > 1) {
          limit = Math.max(1, limit / 2);
          continue;
        }
        throw e;
      }
      if (atRevision == 0) atRevision = page.getHeader().getRevision();
      if (expectedCount < 0) expectedCount = page.getCount();
      List<KeyValue> kvs = page.getKvs();
      kvs.forEach(each);
      count += kvs.size();
      progress.accept(count + " keys at revision " + atRevision);
      if (!page.isMore() || kvs.isEmpty()) break;
      from = after(kvs.get(kvs.size() - 1).getKey());
      limit = nextLimit(limit, bytes(kvs), kvs.size(), pageKeys);
    }
    if (count != expectedCount) {
      throw new IllegalStateException(
          "read "
              + count
              + " keys at revision "
              + atRevision
              + " but etcd counted "
              + expectedCount);
    }
    return new Visited(atRevision, count);
  }

  /**
   * Keys for the next page: enough for {@link #PAGE_BYTES} at the last page's bytes per key, at
   * least 1, at most twice the last page's limit (a run of small keys says little about the keys
   * after it) and at most {@code maxKeys}.
   */
  static int nextLimit(int limit, long pageBytes, int pageKeysRead, int maxKeys) {
    long perKey = Math.max(1, pageBytes / Math.max(1, pageKeysRead));
    long fits = Math.max(1, PAGE_BYTES / perKey);
    return (int) Math.min(Math.min(fits, 2L * limit), maxKeys);
  }

  private static long bytes(List<KeyValue> kvs) {
    long bytes = 0;
    for (KeyValue kv : kvs) bytes += kv.getKey().size() + kv.getValue().size();
    return bytes;
  }

  private GetResponse readPage(ByteSequence from, int limit, long revision) {
    GetOption option =
        GetOption.builder().withRange(TO_THE_END).withLimit(limit).withRevision(revision).build();
    return EtcdClients.await(
        kv.get(from, option),
        "keys from " + printable(from) + " at revision " + (revision == 0 ? "current" : revision),
        PAGE_TIMEOUT);
  }

  private static void write(DataOutputStream out, KeyValue kv) throws IOException {
    byte[] key = kv.getKey().getBytes();
    byte[] value = kv.getValue().getBytes();
    out.writeInt(key.length);
    out.write(key);
    out.writeInt(value.length);
    out.write(value);
    out.writeLong(kv.getCreateRevision());
    out.writeLong(kv.getModRevision());
    out.writeLong(kv.getVersion());
    out.writeLong(kv.getLease());
  }

  /** The smallest key after {@code key}: the key with a zero byte appended. */
  private static ByteSequence after(ByteSequence key) {
    byte[] bytes = key.getBytes();
    return ByteSequence.from(Arrays.copyOf(bytes, bytes.length + 1));
  }

  private static String printable(ByteSequence key) {
    String text = key.toString(java.nio.charset.StandardCharsets.UTF_8);
    return text.length() > 80 ? text.substring(0, 80) + "..." : text.replace("\0", "\\0");
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
