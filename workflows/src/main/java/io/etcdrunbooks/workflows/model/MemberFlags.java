package io.etcdrunbooks.workflows.model;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

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

  /**
   * A flag's value as the member was started with it: {@code --cert-file=/x} or {@code --cert-file
   * /x} on the command line, else its {@code ETCD_CERT_FILE} variable; empty when neither is set.
   */
  public Optional<String> value(String flag) {
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (arg.startsWith(flag + "=")) return Optional.of(arg.substring(flag.length() + 1));
      if (arg.equals(flag) && i + 1 < args.size() && !args.get(i + 1).startsWith("-")) {
        return Optional.of(args.get(i + 1));
      }
    }
    String variable =
        "ETCD_" + flag.replaceFirst("^-+", "").replace('-', '_').toUpperCase(Locale.ROOT);
    return Optional.ofNullable(env.get(variable)).filter(v -> !v.isBlank());
  }

  /** etcd's default --quota-backend-bytes (2 GiB), for a member that sets none. */
  public static final long DEFAULT_QUOTA_BYTES = 2L * 1024 * 1024 * 1024;

  /** The quota the member runs with: its flag, else its ETCD_ variable, else etcd's default. */
  public long quotaBackendBytes() {
    return value("--quota-backend-bytes")
        .map(
            v -> {
              try {
                long quota = Long.parseLong(v.strip());
                return quota <= 0 ? DEFAULT_QUOTA_BYTES : quota; // etcd takes 0 for its default
              } catch (NumberFormatException e) {
                return DEFAULT_QUOTA_BYTES;
              }
            })
        .orElse(DEFAULT_QUOTA_BYTES);
  }
}
