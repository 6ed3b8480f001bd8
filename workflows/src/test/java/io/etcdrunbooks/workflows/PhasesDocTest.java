package io.etcdrunbooks.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.phases.PhaseRunner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * docs/runbooks/phases.md shows each runbook's phases, in order, with the words the code gives
 * them, and the failure types it ends with. When this fails, the message holds the section as the
 * code has it: paste it into the doc.
 */
class PhasesDocTest {

  private static final Path DOC = Path.of("..", "docs", "runbooks", "phases.md");

  @Test
  void everyRunbooksSectionIsWhatTheCodeRuns() throws IOException {
    String doc = Files.readString(DOC);
    for (RunbookDefinition<?> runbook : RunbookCatalog.all()) {
      String expected = section(runbook);
      assertThat(doc)
          .as(
              "docs/runbooks/phases.md, section of %s; as the code has it:%n%s",
              runbook.type(), expected)
          .contains(expected);
    }
  }

  @Test
  void everyFailureTypeIsDocumented() throws IOException {
    String doc = Files.readString(DOC);
    for (FailureType type : FailureType.values()) {
      assertThat(doc)
          .as("failure type %s in docs/runbooks/phases.md", type)
          .contains("`" + type.name() + "`");
    }
  }

  static String section(RunbookDefinition<?> runbook) {
    StringBuilder s =
        new StringBuilder("## ")
            .append(runbook.type())
            .append("\n\n| phase | what it does |\n|---|---|\n");
    for (PhaseRunner.Described phase : runbook.phases()) {
      s.append("| `").append(phase.name()).append("` | ").append(phase.does()).append(" |\n");
    }
    s.append("\nEnds with: ")
        .append(
            runbook.failures().stream()
                .map(f -> "`" + f.name() + "`")
                .collect(Collectors.joining(", ")))
        .append(".\n");
    return s.toString();
  }
}
