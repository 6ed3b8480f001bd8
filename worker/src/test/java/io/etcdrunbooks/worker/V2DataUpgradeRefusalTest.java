package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.testkit.ControlPlaneStandIns;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.common.Failures;
import io.etcdrunbooks.workflows.common.RunbookOptions;
import io.etcdrunbooks.workflows.upgrade.UpgradeRequest;
import io.temporal.client.WorkflowFailedException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A 3.3.25 cluster whose Kubernetes data still lives in the v2 store (as Kubernetes 1.5 wrote it):
 * an upgrade to 3.5.30 would leave it behind an API that 3.4 turns off, so it is refused before
 * anything is touched, naming the v2 keys and the kube-apiservers that read them.
 */
@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class V2DataUpgradeRefusalTest {

  @TempDir Path dir;

  @Test
  void anUpgradeOfAClusterWithV2DataIsRefusedAndTouchesNothing() throws Exception {
    try (SandboxRunbooks runbooks = SandboxRunbooks.start(dir, "3.3.25", Map.of());
        ControlPlaneStandIns apiServers = ControlPlaneStandIns.attach(runbooks.sandbox, "etcd2")) {
      HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
      String client = runbooks.sandbox.cluster().member("m1").clientUrl();
      for (int i = 0; i < 40; i++) {
        String ttl = i < 10 ? "&ttl=3600" : "";
        HttpResponse<String> answer =
            http.send(
                HttpRequest.newBuilder(URI.create(client + "/v2/keys/registry/minions/node-" + i))
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .PUT(HttpRequest.BodyPublishers.ofString("value=node" + ttl))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isIn(200, 201);
      }
      Map<String, Long> pidsBefore = runbooks.pids();

      UpgradeRequest request = UpgradeRequest.to("sandbox", "3.5.30", RunbookOptions.defaults());
      assertThatThrownBy(() -> runbooks.upgradeStub().upgrade(request))
          .isInstanceOf(WorkflowFailedException.class)
          .satisfies(
              e -> {
                assertThat(Failures.rootType(e)).isEqualTo(FailureType.PreflightRefused.name());
                assertThat(Failures.rootMessage(e))
                    .contains(
                        "refused, nothing was touched",
                        "holds 40 keys in the v2 store (10 with a TTL; v2 API served by [m1, m2, m3])",
                        "Migrate them to v3 first",
                        "kube-apiserver on cp-m1 reads etcd2 (--storage-backend=etcd2)");
              });
      assertThat(runbooks.pids()).isEqualTo(pidsBefore);
      assertThat(runbooks.backups()).isEmpty();
      for (String host : apiServers.hosts()) {
        assertThat(HttpProbe.status(apiServers.standIn(host).healthUrl()))
            .as("%s still serving from etcd2", host)
            .isEqualTo(200);
      }
      runbooks.state().members().forEach(m -> assertThat(m.serverVersion()).isEqualTo("3.3.25"));
    }
  }
}
