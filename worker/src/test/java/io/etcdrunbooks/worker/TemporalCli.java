package io.etcdrunbooks.worker;

import io.etcdrunbooks.testkit.TemporalDevServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The real Temporal CLI, running a recipe as an SRE's shell would ({@code bash -c}, the CLI on the
 * PATH), connected by the standard environment names only: TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE,
 * nothing else of the test's environment that starts with TEMPORAL_.
 */
final class TemporalCli {

  private final String address;

  TemporalCli(String address) {
    this.address = address;
  }

  /** Its output (stdout and stderr); fails naming the command when it exits non-zero. */
  String run(String command) throws IOException, InterruptedException {
    ProcessBuilder builder = new ProcessBuilder("bash", "-c", command).redirectErrorStream(true);
    Map<String, String> env = builder.environment();
    env.keySet().removeIf(name -> name.startsWith("TEMPORAL_"));
    env.put("PATH", TemporalDevServer.binary().getParent() + ":" + env.getOrDefault("PATH", ""));
    env.put("TEMPORAL_ADDRESS", address);
    env.put("TEMPORAL_NAMESPACE", "default");
    Process process = builder.start();
    process.getOutputStream().close();
    byte[] out = process.getInputStream().readAllBytes();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new AssertionError("did not end within 30 s: " + command);
    }
    String output = new String(out, StandardCharsets.UTF_8);
    if (process.exitValue() != 0) {
      throw new AssertionError("exit " + process.exitValue() + " of: " + command + "\n" + output);
    }
    return output;
  }
}
