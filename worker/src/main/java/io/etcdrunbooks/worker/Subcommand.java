package io.etcdrunbooks.worker;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A subcommand of the etcd-runbooks command: its name, its usage and the options it takes. Every
 * one answers {@code --help} (or {@code -h}) with its usage and exits 0 before it starts anything,
 * and refuses an option it does not take with its usage and exit status 2.
 *
 * @param usage the synopsis and what each option does, as {@code --help} prints it
 * @param options the option names it takes (without {@code --})
 */
record Subcommand(String name, String usage, List<String> options) {

  static final List<Subcommand> ALL =
      List.of(
          new Subcommand(
              "run",
              """
              run [--roles=worker,api]
                the worker and/or the HTTP API until stopped (configuration: application.yml and
                the environment, see docs/configuration.md)
                --roles   worker, api or worker,api (the default)""",
              List.of("roles")),
          new Subcommand(
              "demo",
              """
              demo [--from=3.3.25] [--to=3.5.30] [--dir=DIR] [--machines]
                a 3-member sandbox upgraded through the API on the embedded Temporal
                --from      the version the sandbox starts on
                --to        the version it is upgraded to
                --dir       where the sandbox goes (default: a temporary directory)
                --machines  systemd machines instead of in-process SSH hosts (root only)""",
              List.of("from", "to", "dir", "machines")),
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
                only the embedded Temporal test server (in memory, on 127.0.0.1), until interrupted
                --port  the port to listen on""",
              List.of("port")),
          new Subcommand(
              "decrypt-backup",
              """
              decrypt-backup --in ID.db.enc --out ID.db --key-file FILE --key-id ID
                an encrypted backup back into the snapshot file etcd restores from""",
              List.of("in", "out", "key-file", "key-id")));

  static Optional<Subcommand> named(String name) {
    return ALL.stream().filter(c -> c.name.equals(name)).findFirst();
  }

  /** Every subcommand's usage, for {@code --help} without a subcommand. */
  static String overview() {
    return "usage: etcd-runbooks COMMAND [OPTIONS]   (no command: run)\n\n"
        + ALL.stream().map(Subcommand::usage).collect(Collectors.joining("\n\n"))
        + "\n\n'etcd-runbooks COMMAND --help' prints one command's usage.";
  }

  static boolean asksForHelp(List<String> args) {
    return args.contains("--help") || args.contains("-h");
  }

  /**
   * The options, or empty after printing why they are refused and the usage to {@code err}: an
   * argument that is not an option, or an option this subcommand does not take.
   */
  Optional<Map<String, String>> parse(List<String> args, PrintStream err) {
    Map<String, String> parsed;
    try {
      parsed = Options.parse(args.toArray(String[]::new));
    } catch (IllegalArgumentException e) {
      return refuse(e.getMessage(), err);
    }
    List<String> unknown =
        parsed.keySet().stream().filter(o -> !options.contains(o)).map(o -> "--" + o).toList();
    if (!unknown.isEmpty()) {
      return refuse(name + " does not take " + String.join(", ", unknown), err);
    }
    return Optional.of(parsed);
  }

  private Optional<Map<String, String>> refuse(String why, PrintStream err) {
    err.println(why);
    err.println("usage: " + usage);
    return Optional.empty();
  }
}
