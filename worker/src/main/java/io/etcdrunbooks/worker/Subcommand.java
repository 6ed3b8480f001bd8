package io.etcdrunbooks.worker;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A subcommand of the etcd-runbooks command (and of the tools' command): its name, its usage and
 * the options it takes. Every one answers {@code --help} (or {@code -h}) with its usage and exits 0
 * before it starts anything, and refuses an option it does not take with its usage and exit status
 * 2.
 *
 * @param usage the synopsis and what each option does, as {@code --help} prints it
 * @param options the option names it takes (without {@code --})
 */
public record Subcommand(String name, String usage, List<String> options) {

  /** The product's commands; the demo, bench, sandbox and temporal commands are the tools'. */
  static final List<Subcommand> ALL =
      List.of(
          new Subcommand(
              "run",
              """
              run [--roles=worker,api]
                the worker and/or the HTTP API until stopped (configuration: application.yml and
                the environment, see docs/configuration.md; temporal.address is required)
                --roles   worker, api or worker,api (the default)""",
              List.of("roles")),
          new Subcommand(
              "decrypt-backup",
              """
              decrypt-backup --in ID.db.enc --out ID.db --key-file FILE --key-id ID
                an encrypted backup back into the snapshot file etcd restores from""",
              List.of("in", "out", "key-file", "key-id")));

  /**
   * A command line taken apart: the subcommand, its options and its arguments after the name.
   *
   * @param args what follows the subcommand's name, as typed
   */
  public record Invocation(Subcommand command, Map<String, String> options, List<String> args) {}

  /**
   * The invocation {@code args} asks for among {@code commands} ({@code defaultCommand} when there
   * are none); otherwise the process ends here: 0 after printing the usage asked for with {@code
   * --help}, 2 after printing why the command line is refused.
   */
  public static Invocation parseOrExit(
      String program, List<Subcommand> commands, String defaultCommand, String[] args) {
    List<String> all = List.of(args);
    if (!all.isEmpty()
        && (all.get(0).equals("help") || Subcommand.asksForHelp(all.subList(0, 1)))) {
      System.out.println(overview(program, commands, defaultCommand));
      System.exit(0);
    }
    String name = all.isEmpty() ? defaultCommand : all.get(0);
    if (name.isEmpty()) {
      System.err.println(overview(program, commands, defaultCommand));
      System.exit(2);
    }
    Subcommand subcommand =
        commands.stream().filter(c -> c.name.equals(name)).findFirst().orElse(null);
    if (subcommand == null) {
      System.err.println("unknown command '" + name + "'");
      System.err.println(overview(program, commands, defaultCommand));
      System.exit(2);
    }
    List<String> rest = all.isEmpty() ? all : all.subList(1, all.size());
    // before anything starts: --help must never bind a port or touch a cluster
    if (Subcommand.asksForHelp(rest)) {
      System.out.println("usage: " + subcommand.usage());
      System.exit(0);
    }
    Map<String, String> options = subcommand.parse(rest, System.err).orElse(null);
    if (options == null) System.exit(2);
    return new Invocation(subcommand, options, rest);
  }

  /** Every subcommand's usage, for {@code --help} without a subcommand. */
  static String overview(String program, List<Subcommand> commands, String defaultCommand) {
    return "usage: "
        + program
        + " COMMAND [OPTIONS]"
        + (defaultCommand.isEmpty() ? "" : "   (no command: " + defaultCommand + ")")
        + "\n\n"
        + commands.stream().map(Subcommand::usage).collect(Collectors.joining("\n\n"))
        + "\n\n'"
        + program
        + " COMMAND --help' prints one command's usage.";
  }

  static boolean asksForHelp(List<String> args) {
    return args.contains("--help") || args.contains("-h");
  }

  /**
   * The options, or empty after printing why they are refused and the usage to {@code err}: an
   * argument that is not an option, or an option this subcommand does not take.
   */
  public Optional<Map<String, String>> parse(List<String> args, PrintStream err) {
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
