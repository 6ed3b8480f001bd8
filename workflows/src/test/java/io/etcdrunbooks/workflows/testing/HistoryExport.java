package io.etcdrunbooks.workflows.testing;

import io.temporal.testing.TestWorkflowEnvironment;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the history of a workflow run in a test environment to the directory named by the system
 * property {@value #PROPERTY}, when it is set: how the in-memory histories under
 * src/test/resources/histories were recorded ({@code mvn -pl workflows verify
 * -Dtest=ReplaceMemberControlFlowTest -Detcdrunbooks.recordHistoriesTo=/tmp/h}).
 */
public final class HistoryExport {

  public static final String PROPERTY = "etcdrunbooks.recordHistoriesTo";

  private HistoryExport() {}

  public static void ifAsked(TestWorkflowEnvironment env, String workflowId, String name) {
    String dir = System.getProperty(PROPERTY);
    if (dir == null || dir.isBlank()) return;
    try {
      Files.createDirectories(Path.of(dir));
      Files.writeString(
          Path.of(dir, name + ".json"),
          env.getWorkflowClient().fetchHistory(workflowId).toJson(true));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (RuntimeException notStarted) {
      // a test that started no workflow under that id has no history to write
    }
  }
}
