package io.etcdrunbooks.activities.host;

import io.etcdrunbooks.inventory.MemberSpec;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/** A plain member's etcd.env: ETCD_* settings, one KEY=value per line, in file order. */
record MemberEnv(Map<String, String> settings) {

  /** Settings that say who and where a member is; never copied from a peer. */
  private static final Set<String> OWN =
      Set.of(
          "ETCD_NAME",
          "ETCD_DATA_DIR",
          "ETCD_WAL_DIR",
          "ETCD_LISTEN_CLIENT_URLS",
          "ETCD_ADVERTISE_CLIENT_URLS",
          "ETCD_LISTEN_PEER_URLS",
          "ETCD_INITIAL_ADVERTISE_PEER_URLS",
          "ETCD_INITIAL_CLUSTER",
          "ETCD_INITIAL_CLUSTER_STATE",
          "ETCD_LISTEN_METRICS_URLS",
          "ETCD_DISCOVERY",
          "ETCD_DISCOVERY_SRV");

  static MemberEnv parse(String text) {
    Map<String, String> settings = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      String l = line.strip();
      int eq = l.indexOf('=');
      if (l.startsWith("ETCD_") && eq > 0) settings.put(l.substring(0, eq), l.substring(eq + 1));
    }
    return new MemberEnv(settings);
  }

  String get(String key) {
    return settings.getOrDefault(key, "");
  }

  /** A peer's settings made this member's own, joining an existing cluster. */
  MemberEnv forJoining(MemberSpec member, String initialCluster) {
    Map<String, String> env = new LinkedHashMap<>();
    env.put("ETCD_NAME", member.name());
    env.put("ETCD_DATA_DIR", member.dataDir());
    env.put("ETCD_LISTEN_CLIENT_URLS", member.clientUrl());
    env.put("ETCD_ADVERTISE_CLIENT_URLS", member.clientUrl());
    env.put("ETCD_LISTEN_PEER_URLS", member.peerUrl());
    env.put("ETCD_INITIAL_ADVERTISE_PEER_URLS", member.peerUrl());
    env.put("ETCD_INITIAL_CLUSTER", initialCluster);
    env.put("ETCD_INITIAL_CLUSTER_STATE", "existing");
    settings.forEach(
        (k, v) -> {
          if (!OWN.contains(k)) env.put(k, v);
        });
    return new MemberEnv(env);
  }

  String render() {
    StringBuilder out = new StringBuilder("# written by etcd-runbooks ReplaceMember\n");
    settings.forEach((k, v) -> out.append(k).append('=').append(v).append('\n'));
    return out.toString();
  }
}
