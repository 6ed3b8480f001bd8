package io.etcdrunbooks.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * How a command of the product or the tools ended: its main class run as a JVM of its own on this
 * JVM's class path, as a user runs it, for the tests of usage and help texts.
 */
public record CommandExit(int status, String out, String err) {

  /** The command's exit, or a failure when it is still running after 20 s (it started a server). */
  public static CommandExit run(Class<?> main, String... args)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).start();
    process.getOutputStream().close();
    if (!process.waitFor(20, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
      throw new AssertionError(
          String.join(" ", args)
              + " was still running after 20 s instead of printing its usage: "
              + new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }
    return new CommandExit(
        process.exitValue(),
        new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8),
        new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8));
  }
}
