package io.etcdrunbooks.workflows;

import static org.assertj.core.api.Assertions.assertThat;

import io.temporal.workflow.WorkflowInterface;
import io.temporal.workflow.WorkflowMethod;
import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The catalog lists every runbook the workflows module has, and each definition holds together:
 * what the worker registers implements the interface the API starts, under the catalog's type, with
 * the catalog's request. The worker's, the API's and Slack's own tests hold them to the catalog;
 * {@link PhasesDocTest} holds the doc's sections to it, and this the other way round.
 */
class RunbookCatalogTest {

  private static final Path SOURCES = Path.of("src", "main", "java");
  private static final Path DOC = Path.of("..", "docs", "runbooks", "phases.md");

  @Test
  void everyWorkflowImplementationOfTheModuleIsACatalogEntry() throws IOException {
    Set<String> implementations;
    try (Stream<Path> files = Files.walk(SOURCES)) {
      implementations =
          files
              .filter(f -> f.getFileName().toString().endsWith("WorkflowImpl.java"))
              .map(f -> SOURCES.relativize(f).toString().replace('/', '.').replace(".java", ""))
              .collect(Collectors.toCollection(TreeSet::new));
    }
    assertThat(implementations).isNotEmpty();
    Set<String> catalog =
        RunbookCatalog.all().stream()
            .map(d -> d.implementation().getName())
            .collect(Collectors.toCollection(TreeSet::new));
    assertThat(catalog)
        .as("RunbookCatalog's implementations against the module's *WorkflowImpl classes")
        .isEqualTo(implementations);
  }

  @Test
  void eachDefinitionsImplementationRunsItsTypeWithItsRequest() {
    for (RunbookDefinition<?> runbook : RunbookCatalog.all()) {
      assertThat(runbook.workflow().isAnnotationPresent(WorkflowInterface.class))
          .as("%s: %s is a workflow interface", runbook, runbook.workflow())
          .isTrue();
      assertThat(runbook.workflow()).isAssignableFrom(runbook.implementation());
      List<Method> methods =
          Arrays.stream(runbook.workflow().getMethods())
              .filter(m -> m.isAnnotationPresent(WorkflowMethod.class))
              .toList();
      assertThat(methods).as("%s: one workflow method", runbook).hasSize(1);
      assertThat(methods.get(0).getAnnotation(WorkflowMethod.class).name())
          .as("%s: the workflow method's type", runbook)
          .isEqualTo(runbook.type());
      assertThat(methods.get(0).getParameterTypes())
          .as("%s: the workflow method takes the request", runbook)
          .containsExactly(runbook.request());
      assertThat(runbook.request().isRecord()).as("%s: the request is a record", runbook).isTrue();
      List<String> fields =
          Arrays.stream(runbook.request().getRecordComponents())
              .map(RecordComponent::getName)
              .toList();
      assertThat(fields)
          .as("%s: the request names its %s", runbook, runbook.target().field())
          .contains(runbook.target().field());
      if (runbook.changesCluster())
        assertThat(fields).as("%s: a change can be a dry run", runbook).contains("dryRun");
    }
  }

  @Test
  void typesEndpointsAndSlackVerbsAreEachOnesOwn() {
    List<RunbookDefinition<?>> all = RunbookCatalog.all();
    assertThat(all.stream().map(RunbookDefinition::type)).doesNotHaveDuplicates();
    assertThat(all.stream().map(d -> d.target() + " " + d.path())).doesNotHaveDuplicates();
    assertThat(all.stream().flatMap(d -> d.slackVerb().stream())).doesNotHaveDuplicates();
  }

  @Test
  void theDocShowsNoRunbookTheCatalogLacks() throws IOException {
    Matcher section = Pattern.compile("(?m)^## (\\w+)$").matcher(Files.readString(DOC));
    Set<String> documented = new TreeSet<>();
    while (section.find()) documented.add(section.group(1));
    Set<String> types =
        RunbookCatalog.all().stream()
            .map(RunbookDefinition::type)
            .collect(Collectors.toCollection(TreeSet::new));
    assertThat(documented).as("runbook sections of docs/runbooks/phases.md").isEqualTo(types);
  }
}
