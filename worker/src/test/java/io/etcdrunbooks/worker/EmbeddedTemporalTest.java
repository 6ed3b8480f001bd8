package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.etcdrunbooks.testkit.EmbeddedTemporal;
import io.etcdrunbooks.workflows.common.RunbookSearchAttributes;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.client.WorkflowStub;
import io.temporal.common.SearchAttributeKey;
import io.temporal.common.SearchAttributes;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.net.ServerSocket;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The embedded server knows the runbooks' search attributes, and only those. */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class EmbeddedTemporalTest {

  @Test
  void aRunbookStartsThereWithItsSearchAttributesAndAnUnregisteredOneIsRefused() throws Exception {
    try (EmbeddedTemporal server = EmbeddedTemporal.start(freePort())) {
      WorkflowServiceStubs stubs =
          WorkflowServiceStubs.newServiceStubs(
              WorkflowServiceStubsOptions.newBuilder().setTarget(server.address()).build());
      try {
        WorkflowClient client = WorkflowClient.newInstance(stubs);
        WorkflowStub started =
            start(
                client,
                "registered",
                RunbookSearchAttributes.atStart("UpgradeCluster", "c", "me", ""));
        assertThat(
                started.describe().getTypedSearchAttributes().get(RunbookSearchAttributes.CLUSTER))
            .isEqualTo("c");

        Throwable refused =
            catchThrowable(
                () ->
                    start(
                        client,
                        "unregistered",
                        SearchAttributes.newBuilder()
                            .set(SearchAttributeKey.forKeyword("NotRegistered"), "x")
                            .build()));
        assertThat(refused).isNotNull();
      } finally {
        stubs.shutdownNow();
      }
    }
  }

  private static WorkflowStub start(WorkflowClient client, String id, SearchAttributes attributes) {
    WorkflowStub stub =
        client.newUntypedWorkflowStub(
            "UpgradeCluster",
            WorkflowOptions.newBuilder()
                .setWorkflowId(id)
                .setTaskQueue("nobody-polls")
                .setTypedSearchAttributes(attributes)
                .build());
    stub.start();
    return stub;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
