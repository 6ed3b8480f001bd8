package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.etcdrunbooks.activities.etcd.EtcdActivitiesImpl;
import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.workflows.RunbookCatalog;
import io.etcdrunbooks.workflows.RunbookDefinition;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.Worker;
import io.temporal.worker.WorkerFactory;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The worker registers every runbook of the catalog: a runbook missing from its registration fails
 * here (Temporal refuses a second registration of a type, and takes one it does not have yet).
 */
@Timeout(value = 1, unit = TimeUnit.MINUTES)
class RunbookWorkerRegistrationTest {

  @TempDir Path dir;

  @Test
  void theWorkerRunsEveryRunbookOfTheCatalog() {
    // stubs that connect on first use: a worker that is never started asks Temporal nothing
    WorkflowServiceStubs service =
        WorkflowServiceStubs.newServiceStubs(
            WorkflowServiceStubsOptions.newBuilder().setTarget("127.0.0.1:1").build());
    try (SshConnector ssh = new SshConnector()) {
      InventorySource inventory = new InventorySource(dir.resolve("inventory.yaml"));
      Worker worker =
          WorkerFactory.newInstance(WorkflowClient.newInstance(service)).newWorker("registration");
      RunbookWorker.register(
          worker,
          WorkerActivities.of(
              inventory,
              new EtcdActivitiesImpl(ClusterTargets.etcdOnly(inventory)),
              ssh,
              NO_RELEASES));
      for (RunbookDefinition<?> runbook : RunbookCatalog.all()) {
        Throwable again =
            catchThrowable(
                () -> worker.registerWorkflowImplementationTypes(runbook.implementation()));
        assertThat(again)
            .as("%s is registered by RunbookWorker.register", runbook)
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("already registered");
      }
    } finally {
      service.shutdownNow();
    }
  }

  private static final ReleaseStore NO_RELEASES =
      new ReleaseStore() {
        @Override
        public List<String> versions() {
          return List.of();
        }

        @Override
        public Path binDir(String version) {
          throw new IllegalArgumentException("no release " + version);
        }
      };
}
