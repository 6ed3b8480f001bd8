package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.workflows.model.MemberFlags;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * Reads how a running etcd was started from {@code /proc}: whatever started it (a unit with a
 * drop-in, an environment file, a manifest, a wrapper script), this is what it runs with.
 */
final class ProcessFlagsReader {

  static final String ENV_MARKER = "--etcd-runbooks-environment--";
  private static final Duration TIMEOUT = Duration.ofSeconds(20);

  private final SshConnector ssh;

  ProcessFlagsReader(SshConnector ssh) {
    this.ssh = ssh;
  }

  MemberFlags read(MemberHost host, ServiceManager service) {
    OptionalLong pid = service.mainPid(host);
    if (pid.isEmpty()) return MemberFlags.notRunning(host.member().name());
    String proc = "/proc/" + pid.getAsLong();
    String script =
        "tr '\\0' '\\n' < "
            + proc
            + "/cmdline && echo "
            + ENV_MARKER
            + " && { tr '\\0' '\\n' < "
            + proc
            + "/environ | grep '^ETCD_' || true; }";
    String user = host.target().user();
    String command = "root".equals(user) ? script : "sudo -n /bin/sh -c " + quote(script);
    String out =
        ssh.exec(host.target(), command, TIMEOUT)
            .orThrow(host.target(), "read the command line of etcd (pid " + pid.getAsLong() + ")")
            .stdout();
    return parse(host.member().name(), out);
  }

  static MemberFlags parse(String member, String out) {
    List<String> args = new ArrayList<>();
    Map<String, String> env = new LinkedHashMap<>();
    boolean inEnv = false;
    boolean binary = true;
    for (String line : out.split("\n", -1)) {
      if (line.equals(ENV_MARKER)) {
        inEnv = true;
      } else if (inEnv) {
        int eq = line.indexOf('=');
        if (eq > 0) env.put(line.substring(0, eq), line.substring(eq + 1));
      } else if (binary) {
        binary = false; // argv[0]: the binary itself
      } else if (!line.isEmpty()) {
        args.add(line);
      }
    }
    return new MemberFlags(member, args, env, true);
  }
}
