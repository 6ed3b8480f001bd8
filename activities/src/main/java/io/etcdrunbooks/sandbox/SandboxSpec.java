package io.etcdrunbooks.sandbox;

import java.nio.file.Path;
import java.util.Map;

/**
 * A local cluster to build.
 *
 * @param dir the sandbox's own directory (created; a previous sandbox in it is stopped and replaced)
 * @param cluster cluster name in the inventory
 * @param members member count; members are named m1..mN
 * @param version etcd version every member starts with
 * @param extraEnvByMember extra etcd.env lines per member name, for example {m3: {ETCD_LOGGER: capnslog}}
 */
public record SandboxSpec(Path dir, String cluster, int members, String version, Map<String, Map<String, String>> extraEnvByMember) {

  public SandboxSpec {
    extraEnvByMember = extraEnvByMember == null ? Map.of() : Map.copyOf(extraEnvByMember);
    if (members < 1) throw new IllegalArgumentException("a sandbox needs at least one member");
  }

  public SandboxSpec(Path dir, String cluster, int members, String version) {
    this(dir, cluster, members, version, Map.of());
  }
}
