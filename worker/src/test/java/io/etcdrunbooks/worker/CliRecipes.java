package io.etcdrunbooks.worker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shell commands of docs/temporal-cli.md's {@code bash} blocks, one per command (lines joined
 * where they end in a backslash), with the doc's cluster and task queue replaced by a test's.
 */
record CliRecipes(List<String> commands) {

  static final Path DOC = Path.of("..", "docs", "temporal-cli.md");

  private static final Pattern TYPE = Pattern.compile("--type (\\S+)");
  private static final Pattern WORKFLOW_ID = Pattern.compile("--workflow-id (\\S+)");
  private static final Pattern INPUT = Pattern.compile("--input '([^']*)'");

  /** A {@code temporal workflow start} recipe: its workflow type, id and JSON input. */
  record Start(String command, String type, String workflowId, String input) {}

  /**
   * The doc's commands, {@code prod-1} replaced by {@code cluster} and the task queue {@code
   * etcd-runbooks} by {@code taskQueue}.
   */
  static CliRecipes read(String cluster, String taskQueue) throws IOException {
    List<String> commands = new ArrayList<>();
    boolean inBash = false;
    StringBuilder command = new StringBuilder();
    for (String line : Files.readAllLines(DOC)) {
      if (line.startsWith("```")) {
        inBash = line.equals("```bash");
        continue;
      }
      if (!inBash) continue;
      if (line.endsWith("\\")) {
        command.append(line, 0, line.length() - 1);
        continue;
      }
      command.append(line);
      String whole = command.toString().strip();
      command.setLength(0);
      if (whole.startsWith("temporal ")) {
        commands.add(
            whole
                .replace("prod-1", cluster)
                .replace("--task-queue etcd-runbooks", "--task-queue " + taskQueue));
      }
    }
    return new CliRecipes(List.copyOf(commands));
  }

  List<Start> starts() {
    return commands.stream()
        .filter(c -> c.startsWith("temporal workflow start "))
        .map(
            c ->
                new Start(
                    c, group(TYPE, c, "--type"), group(WORKFLOW_ID, c, "--workflow-id"), input(c)))
        .toList();
  }

  /** The first command that begins with {@code prefix} ("temporal workflow query"), by its id. */
  String first(String prefix) {
    return all(prefix).stream()
        .findFirst()
        .orElseThrow(() -> new AssertionError(DOC + " has no recipe '" + prefix + " ...'"));
  }

  List<String> all(String prefix) {
    return commands.stream().filter(c -> c.startsWith(prefix + " ")).toList();
  }

  /** The recipe of a control (approveRun, pauseRun, resumeRun): an update, or a signal. */
  String control(String name) {
    return commands.stream()
        .filter(
            c ->
                c.startsWith("temporal workflow signal ")
                    || c.startsWith("temporal workflow update "))
        .filter(c -> c.contains("--name " + name + " "))
        .findFirst()
        .orElseThrow(() -> new AssertionError(DOC + " has no recipe for the control " + name));
  }

  /** The recipe aimed at another run: its {@code --workflow-id} replaced. */
  static String on(String command, String workflowId) {
    return WORKFLOW_ID
        .matcher(command)
        .replaceFirst(Matcher.quoteReplacement("--workflow-id " + workflowId));
  }

  private static String input(String command) {
    return Optional.of(INPUT.matcher(command))
        .filter(Matcher::find)
        .map(m -> m.group(1))
        .orElseThrow(() -> new AssertionError("no --input '...' in: " + command));
  }

  private static String group(Pattern pattern, String command, String what) {
    Matcher m = pattern.matcher(command);
    if (!m.find()) throw new AssertionError("no " + what + " in: " + command);
    return m.group(1);
  }
}
