package io.etcdrunbooks.tools;

import io.etcdrunbooks.testkit.EmbeddedTemporal;
import io.etcdrunbooks.testkit.SandboxMain;
import io.etcdrunbooks.worker.Main;
import io.etcdrunbooks.worker.Subcommand;
import java.util.List;
import java.util.Map;

/**
 * The tools' command (tools/target/etcd-runbooks-tools.jar): {@code demo}, {@code bench}, {@code
 * sandbox} and {@code temporal}, which bring the test kit and Temporal's in-memory test server; the
 * product's jar (worker/target/etcd-runbooks.jar) holds neither. {@code etcd-runbooks-tools
 * [COMMAND] --help} prints each one's usage.
 */
public final class ToolsMain {

  static final List<Subcommand> ALL =
      List.of(
          new Subcommand(
              "demo",
              """
              demo [--from=3.3.25] [--to=3.5.30] [--dir=DIR] [--machines] [--keep-server]
                   [--embedded]
                a 3-member sandbox upgraded through the API, on the real Temporal server with its
                Web UI (temporal server start-dev, as deploy/scripts/fetch-temporal.sh caches it,
                its SQLite file in DIR/temporal), which this demo starts and stops
                --from         the version the sandbox starts on
                --to           the version it is upgraded to
                --dir          where the sandbox and the server's file go (default: a temporary
                               directory)
                --machines     systemd machines instead of in-process SSH hosts (root only)
                --keep-server  keep the server, its Web UI and the API up after the upgrade, until
                               interrupted
                --embedded     Temporal's in-memory test server in this process instead (no Web
                               UI; the run is lost when the demo ends)""",
              List.of("from", "to", "dir", "machines", "keep-server", "embedded")),
          new Subcommand(
              "sandbox",
              """
              sandbox --dir DIR --version 3.4.23 [--members 3] [--cluster sandbox] [--releases DIR]
                      [--service-kind plain|static-pod|systemd]
                a local cluster whose members are SSH "hosts" on 127.0.0.1, until interrupted; prints
                its inventory file
                --releases  etcd releases (default: $ETCD_RUNBOOKS_CACHE/etcd or
                            ~/.cache/etcd-runbooks/etcd, as deploy/scripts/fetch-etcd.sh fills it)""",
              List.of("dir", "version", "members", "cluster", "releases", "service-kind")),
          new Subcommand("bench", Bench.USAGE, Bench.OPTIONS),
          new Subcommand(
              "temporal",
              """
              temporal [--port=7233]
                only Temporal's Java test server (in memory, on 127.0.0.1), until interrupted; point
                a worker at it with temporal.address
                --port  the port to listen on""",
              List.of("port")));

  private ToolsMain() {}

  public static void main(String[] args) throws Exception {
    Subcommand.Invocation invocation = Subcommand.parseOrExit("etcd-runbooks-tools", ALL, "", args);
    Map<String, String> options = invocation.options();
    switch (invocation.command().name()) {
      case "demo" -> System.exit(Demo.run(options));
      case "sandbox" -> SandboxMain.main(invocation.args().toArray(String[]::new));
      case "bench" -> System.exit(Bench.run(options));
      default -> temporalOnly(Integer.parseInt(options.getOrDefault("port", "7233")));
    }
  }

  private static void temporalOnly(int port) throws InterruptedException {
    EmbeddedTemporal server = EmbeddedTemporal.start(port);
    System.out.println("Temporal's test server (in memory) listening on " + server.address());
    Main.runUntilStopped(server::close);
  }
}
