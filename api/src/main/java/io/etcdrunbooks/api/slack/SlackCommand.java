package io.etcdrunbooks.api.slack;

import io.etcdrunbooks.api.auth.ApiAction;
import io.etcdrunbooks.api.auth.Role;
import io.etcdrunbooks.workflows.RunbookCatalog;
import io.etcdrunbooks.workflows.RunbookDefinition;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * What a slash command's text asks for. Each command needs the role its HTTP API call needs ({@link
 * ApiAction} of the same call), so Slack and the API never disagree about who may do what.
 */
public sealed interface SlackCommand {

  /** The role this command needs. */
  Role requiredRole();

  /** The cluster the command names; empty for a command that names none (approve, help). */
  default Optional<String> namedCluster() {
    return Optional.empty();
  }

  /**
   * A command that starts a runbook: it needs the role that starts it through the API, and its verb
   * is the runbook's Slack verb in the catalog.
   */
  sealed interface Starts extends SlackCommand
      permits Upgrade, Replace, Maintenance, Scale, RecoverQuorum, Fleet {
    RunbookDefinition<?> runbook();

    default Role requiredRole() {
      return ApiAction.starting(runbook()).role();
    }
  }

  /** {@code status <cluster>}: live member status, read from etcd now. */
  record Status(String cluster) implements SlackCommand {
    public Role requiredRole() {
      return ApiAction.CLUSTER_STATUS.role();
    }

    public Optional<String> namedCluster() {
      return Optional.of(cluster);
    }
  }

  /** {@code upgrade <cluster> <version>}: starts UpgradeCluster. */
  record Upgrade(String cluster, String version) implements Starts {
    public RunbookDefinition<?> runbook() {
      return RunbookCatalog.UPGRADE;
    }

    public Optional<String> namedCluster() {
      return Optional.of(cluster);
    }
  }

  /**
   * {@code replace <cluster> <member>}: starts ReplaceMember with the new member on the failed
   * member's host.
   */
  record Replace(String cluster, String member) implements Starts {
    public RunbookDefinition<?> runbook() {
      return RunbookCatalog.REPLACE_MEMBER;
    }

    public Optional<String> namedCluster() {
      return Optional.of(cluster);
    }
  }

  /**
   * {@code maintenance <cluster>}: starts Maintenance (defragmentation where it gives space back).
   */
  record Maintenance(String cluster) implements Starts {
    public RunbookDefinition<?> runbook() {
      return RunbookCatalog.MAINTENANCE;
    }

    public Optional<String> namedCluster() {
      return Optional.of(cluster);
    }
  }

  /**
   * {@code scale <cluster> <size>}: starts ScaleCluster to shrink (growing needs the new members'
   * hosts and URLs, which the API takes).
   */
  record Scale(String cluster, int size) implements Starts {
    public RunbookDefinition<?> runbook() {
      return RunbookCatalog.SCALE;
    }

    public Optional<String> namedCluster() {
      return Optional.of(cluster);
    }
  }

  /**
   * {@code recover-quorum <cluster> acknowledge-data-loss}: starts RecoverQuorum, which waits for
   * an admin's approval before it touches anything.
   */
  record RecoverQuorum(String cluster) implements Starts {
    public RunbookDefinition<?> runbook() {
      return RunbookCatalog.RECOVER_QUORUM;
    }

    public Optional<String> namedCluster() {
      return Optional.of(cluster);
    }
  }

  /**
   * {@code fleet <selector|fleet> <version>}: starts FleetUpgrade, one canary then waves by size,
   * each wave after the first approved in Slack. A selector ({@code env=prod,size=small}) names the
   * fleet after itself; a plain name is the inventory's fleet of that name.
   */
  record Fleet(String selector, String version) implements Starts {
    public RunbookDefinition<?> runbook() {
      return RunbookCatalog.FLEET_UPGRADE;
    }

    /** The fleet's name: the inventory fleet named, or one made from the selector. */
    public String fleet() {
      if (!isSelector()) return selector.toLowerCase(Locale.ROOT);
      if (selector.equals("*")) return "all";
      String name =
          selector.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "");
      return name.length() <= 60 ? name : name.substring(0, 60);
    }

    /** Whether the text is a selector rather than a fleet's name. */
    public boolean isSelector() {
      return selector.contains("=") || selector.equals("*");
    }
  }

  /** {@code approve <workflowId>}: lets a runbook that waits for approval go on. */
  record Approve(String workflowId) implements SlackCommand {
    public Role requiredRole() {
      return ApiAction.APPROVE.role();
    }
  }

  /** {@code help}, or no text. */
  record Help() implements SlackCommand {
    public Role requiredRole() {
      return Role.VIEWER;
    }
  }

  /** Text that is none of the commands; {@code problem} says what is wrong. */
  record Invalid(String problem) implements SlackCommand {
    public Role requiredRole() {
      return Role.VIEWER;
    }
  }

  /** The word recover-quorum needs, as the API needs acknowledgeDataLoss. */
  String ACKNOWLEDGE = "acknowledge-data-loss";

  /** A fleet's selector ({@code env=prod,size=small}, {@code *}) or name. */
  String SELECTOR = "\\*|[A-Za-z0-9][A-Za-z0-9._/=,-]{0,200}";

  /** Names of clusters, members, versions and runbooks: no spaces, slashes or markup. */
  String NAME = "[A-Za-z0-9][A-Za-z0-9._-]{0,127}";

  /**
   * Parses the text after the slash command. Never throws: text that is no command is {@link
   * Invalid}.
   */
  static SlackCommand parse(String text) {
    List<String> words =
        text == null || text.isBlank() ? List.of() : List.of(text.strip().split("\\s+"));
    if (words.isEmpty()) return new Help();
    String verb = words.get(0).toLowerCase(Locale.ROOT);
    List<String> args = words.subList(1, words.size());
    boolean selects = RunbookCatalog.FLEET_UPGRADE.slackVerb().filter(verb::equals).isPresent();
    for (String arg : selects && !args.isEmpty() ? args.subList(1, args.size()) : args) {
      if (!arg.matches(NAME)) {
        return new Invalid(
            "'"
                + shorten(arg)
                + "' is not a cluster, member, version or runbook id (letters, digits, '.', '_', '-')");
      }
    }
    Optional<RunbookDefinition<?>> runbook = RunbookCatalog.bySlackVerb(verb);
    if (runbook.isPresent()) return starting(runbook.get(), args);
    return switch (verb) {
      case "help" -> new Help();
      case "status" -> args.size() == 1 ? new Status(args.get(0)) : usage("status <cluster>", args);
      case "approve" ->
          args.size() == 1 ? new Approve(args.get(0)) : usage("approve <runbook id>", args);
      default -> new Invalid("unknown command '" + shorten(words.get(0)) + "'");
    };
  }

  /** The command that starts {@code runbook}, from the words after its verb. */
  private static SlackCommand starting(RunbookDefinition<?> runbook, List<String> args) {
    String verb = verb(runbook);
    if (runbook == RunbookCatalog.UPGRADE) {
      return args.size() == 2
          ? new Upgrade(args.get(0), args.get(1))
          : usage(verb + " <cluster> <version>", args);
    }
    if (runbook == RunbookCatalog.REPLACE_MEMBER) {
      return args.size() == 2
          ? new Replace(args.get(0), args.get(1))
          : usage(verb + " <cluster> <member>", args);
    }
    if (runbook == RunbookCatalog.MAINTENANCE) {
      return args.size() == 1 ? new Maintenance(args.get(0)) : usage(verb + " <cluster>", args);
    }
    if (runbook == RunbookCatalog.SCALE) {
      return args.size() == 2 && args.get(1).matches("\\d{1,2}")
          ? new Scale(args.get(0), Integer.parseInt(args.get(1)))
          : usage(verb + " <cluster> <size>", args);
    }
    if (runbook == RunbookCatalog.RECOVER_QUORUM) {
      return args.size() == 2 && args.get(1).equals(ACKNOWLEDGE)
          ? new RecoverQuorum(args.get(0))
          : new Invalid(
              "usage: "
                  + verb
                  + " <cluster> "
                  + ACKNOWLEDGE
                  + " (the cluster is rebuilt from one member, and writes that reached only"
                  + " the lost members are lost)");
    }
    if (runbook == RunbookCatalog.FLEET_UPGRADE) {
      if (args.size() != 2) return usage(verb + " <selector or fleet> <version>", args);
      if (!args.get(0).matches(SELECTOR))
        return new Invalid(
            "'"
                + shorten(args.get(0))
                + "' is neither a fleet's name nor a selector such as env=prod,size=small");
      return new Fleet(args.get(0), args.get(1));
    }
    return new Invalid(
        "'" + verb + "' starts " + runbook.type() + ", which this Slack command cannot start yet");
  }

  /**
   * The commands, one per line, each with the role it needs; {@code command} is the slash command,
   * such as /etcd.
   */
  static String usage(String command) {
    return String.join(
        "\n",
        command + " status <cluster>  (viewer): members, versions, leader, alarms",
        line(
            command,
            RunbookCatalog.UPGRADE,
            "<cluster> <version>",
            "start the upgrade, for example "
                + command
                + " "
                + verb(RunbookCatalog.UPGRADE)
                + " prod-1 3.5.30"),
        line(
            command,
            RunbookCatalog.REPLACE_MEMBER,
            "<cluster> <member>",
            "replace a failed member on its own host"),
        line(
            command,
            RunbookCatalog.MAINTENANCE,
            "<cluster>",
            "defragment the members with space to give back, one at a time"),
        line(
            command,
            RunbookCatalog.SCALE,
            "<cluster> <size>",
            "shrink to an odd size (growing: the API)"),
        line(
            command,
            RunbookCatalog.RECOVER_QUORUM,
            "<cluster> " + ACKNOWLEDGE,
            "rebuild a cluster that lost quorum from its best member; waits for an admin's approve"),
        command + " approve <runbook id>  (operator): let a runbook waiting for approval go on",
        line(
            command,
            RunbookCatalog.FLEET_UPGRADE,
            "<selector or fleet> <version>",
            "upgrade the clusters the selector (env=prod,size=small) or the inventory's fleet"
                + " names, a canary then waves by size, each wave approved here; "
                + command
                + " status <fleet> shows it"),
        command + " help");
  }

  /** A runbook's line of the usage: its verb and the role that starts it, from the catalog. */
  private static String line(
      String command, RunbookDefinition<?> runbook, String arguments, String what) {
    ApiAction action = ApiAction.starting(runbook);
    return command
        + " "
        + verb(runbook)
        + " "
        + arguments
        + "  ("
        + action.role().name().toLowerCase(Locale.ROOT)
        + (action.scope() == ApiAction.Scope.EVERY_CLUSTER ? ", every cluster" : "")
        + "): "
        + what;
  }

  private static String verb(RunbookDefinition<?> runbook) {
    return runbook.slackVerb().orElseThrow();
  }

  private static Invalid usage(String form, List<String> args) {
    return new Invalid(
        "usage: "
            + form
            + " (got "
            + args.size()
            + (args.size() == 1 ? " argument)" : " arguments)"));
  }

  private static String shorten(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "...";
  }
}
