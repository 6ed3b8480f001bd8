package io.etcdrunbooks.testkit;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.PutOption;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Test-only: writes keys through jetcd, in transactions of 100 puts (etcd allows 128 operations per
 * txn).
 */
public final class TestKeys {

  private TestKeys() {}

  public static ByteSequence bytes(String s) {
    return ByteSequence.from(s, StandardCharsets.UTF_8);
  }

  /**
   * Puts {@code <prefix>00000 .. <prefix>N-1} with values {@code <value>-i}; returns the revision
   * after the last.
   */
  public static long put(Client client, String prefix, int count, String value) throws Exception {
    long revision = 0;
    for (int start = 0; start < count; start += 100) {
      List<Op> ops = new ArrayList<>();
      for (int i = start; i < Math.min(count, start + 100); i++) {
        ops.add(
            Op.put(
                bytes(String.format("%s%05d", prefix, i)),
                bytes(value + "-" + i),
                PutOption.DEFAULT));
      }
      revision =
          client
              .getKVClient()
              .txn()
              .Then(ops.toArray(Op[]::new))
              .commit()
              .get(10, TimeUnit.SECONDS)
              .getHeader()
              .getRevision();
    }
    return revision;
  }

  public static long put(Client client, String key, String value) throws Exception {
    return client
        .getKVClient()
        .put(bytes(key), bytes(value))
        .get(10, TimeUnit.SECONDS)
        .getHeader()
        .getRevision();
  }
}
