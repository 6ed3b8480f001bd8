package io.etcdrunbooks.workflows.model;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The etcd v2 store as its API shows it (the membership etcd keeps there is not visible to it).
 *
 * @param servedBy members that answer the v2 API ({@code --enable-v2}: on by default in 3.3, off
 *     from 3.4, gone in 3.6)
 * @param keys keys in the v2 store, read from the first member that serves it; 0 when none does
 * @param keysWithTtl of those, keys with a TTL (Kubernetes events), which need leases in v3
 * @param unread why a member's v2 API could not be read; null when it was
 * @param byPrefix keys per top-level prefix ("/coreos.com": 3), in prefix order; empty in older
 *     histories
 */
public record V2Store(
    List<String> servedBy, long keys, long keysWithTtl, String unread, Map<String, Long> byPrefix) {

  public V2Store {
    servedBy = servedBy == null ? List.of() : List.copyOf(servedBy);
    byPrefix = byPrefix == null ? Map.of() : new TreeMap<>(byPrefix);
  }

  public static final V2Store NOT_SERVED = new V2Store(List.of(), 0, 0, null, Map.of());

  public static V2Store unreadable(String why) {
    return new V2Store(List.of(), 0, 0, why, Map.of());
  }

  public boolean holdsData() {
    return keys > 0;
  }
}
