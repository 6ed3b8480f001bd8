package io.etcdrunbooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.common.RunbookSearchAttributes;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.operatorservice.v1.ListSearchAttributesRequest;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 2, unit = TimeUnit.MINUTES)
class TemporalDevServerTest {

  @TempDir Path dir;

  @Test
  void aWorkflowStartedBeforeTheServerWasKilledIsThereWhenItStartsAgainOnItsFile()
      throws Exception {
    try (TemporalDevServer server = TemporalDevServer.start(dir)) {
      assertThat(registeredSearchAttributes(server))
          .containsAll(RunbookSearchAttributes.ALL.stream().map(k -> k.getName()).toList());
      HttpResponse<String> ui =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(server.webUi())).build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(ui.statusCode()).as("the Web UI at %s", server.webUi()).isEqualTo(200);

      WorkflowServiceStubs stubs =
          WorkflowServiceStubs.newServiceStubs(
              WorkflowServiceStubsOptions.newBuilder().setTarget(server.address()).build());
      try {
        WorkflowClient client = WorkflowClient.newInstance(stubs);
        WorkflowStub started =
            client.newUntypedWorkflowStub(
                "NoWorkerRunsThis",
                WorkflowOptions.newBuilder()
                    .setWorkflowId("persisted")
                    .setTaskQueue("no-worker")
                    .build());
        started.start();

        server.kill();
        server.restart();

        assertThat(
                client
                    .newUntypedWorkflowStub("persisted")
                    .describe()
                    .getRawDescription()
                    .getWorkflowExecutionInfo()
                    .getStatus())
            .isEqualTo(WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_RUNNING);
      } finally {
        stubs.shutdownNow();
      }
    }
  }

  private static java.util.Set<String> registeredSearchAttributes(TemporalDevServer server) {
    OperatorServiceStubs operator =
        OperatorServiceStubs.newServiceStubs(
            OperatorServiceStubsOptions.newBuilder()
                .setTarget(server.address())
                .validateAndBuildWithDefaults());
    try {
      return operator
          .blockingStub()
          .listSearchAttributes(
              ListSearchAttributesRequest.newBuilder().setNamespace("default").build())
          .getCustomAttributesMap()
          .keySet();
    } finally {
      operator.shutdownNow();
    }
  }
}
