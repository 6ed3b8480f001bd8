package io.etcdrunbooks.workflows.model;

import java.util.List;
import java.util.Map;

/**
 * How a member's etcd was started, read from the running process ({@code /proc/<pid>/cmdline} and
 * its {@code ETCD_*} environment): what a new binary will be started with too.
 *
 * @param args the command line after the binary
 * @param env the process's {@code ETCD_*} variables (names and values; etcd takes no secret there)
 * @param running false when no etcd of the member runs, so nothing could be read
 */
public record MemberFlags(
    String member, List<String> args, Map<String, String> env, boolean running) {

  public MemberFlags {
    args = args == null ? List.of() : List.copyOf(args);
    env = env == null ? Map.of() : Map.copyOf(env);
  }

  public static MemberFlags notRunning(String member) {
    return new MemberFlags(member, List.of(), Map.of(), false);
  }

  /** The flag's name as given ({@code --debug} of {@code --debug=true}), for each argument. */
  public List<String> flagNames() {
    return args.stream().filter(a -> a.startsWith("-")).map(a -> a.split("=", 2)[0]).toList();
  }
}
