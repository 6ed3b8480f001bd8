package io.etcdrunbooks.activities.migrate;

import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcdrunbooks.activities.etcd.KeyspaceReader;
import io.etcdrunbooks.activities.support.Heartbeats;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;

/**
 * Every key of the v3 store at one revision, by key: what the migration compares with the v2 store.
 * Kubernetes' v2-era keys and values are UTF-8 text (the v2 API carries nothing else).
 */
record V3Keys(long revision, Map<String, Entry> keys) {

  record Entry(String value, long lease) {}

  /** The keys within the scope, at the same revision. */
  V3Keys within(KeyScope scope) {
    Map<String, Entry> in = new TreeMap<>();
    keys.forEach(
        (k, e) -> {
          if (scope.contains(k)) in.put(k, e);
        });
    return new V3Keys(revision, in);
  }

  static V3Keys read(KV kv) {
    Map<String, Entry> keys = new TreeMap<>();
    KeyspaceReader.Visited visited =
        new KeyspaceReader(kv)
            .visit(
                0,
                (KeyValue k) ->
                    keys.put(
                        k.getKey().toString(StandardCharsets.UTF_8),
                        new Entry(k.getValue().toString(StandardCharsets.UTF_8), k.getLease())),
                Heartbeats::beat);
    return new V3Keys(visited.revision(), keys);
  }
}
