package io.etcdrunbooks.activities.etcd;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.testkit.EtcdReleases;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.testkit.Sandbox;
import io.etcdrunbooks.testkit.SandboxSpec;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.V2Store;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The v2 store as discovery reports it: on 3.3.25 (v2 API on by default) with Kubernetes-like v2
 * data, keys with a TTL among them; on 3.4.23 (v2 API off by default) and 3.6.16 (no v2 store) not
 * served at all.
 */
@RealEtcd
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class V2StoreDetectionTest {

  @TempDir Path dir;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

  @Test
  void on3_3TheV2KeysAndThoseWithATtlAreCountedAndEveryMemberServesTheV2Api() throws Exception {
    try (Sandbox sandbox =
        Sandbox.create(
            new SandboxSpec(dir.resolve("v2"), "v2", 3, "3.3.25"), EtcdReleases.store())) {
      String client = sandbox.cluster().member("m2").clientUrl();
      for (int i = 0; i < 150; i++) putV2(client, "/registry/pods/default/pod-" + i, "");
      for (int i = 0; i < 30; i++)
        putV2(client, "/registry/events/default/event-" + i, "&ttl=3600");

      V2Store v2 =
          new EtcdActivitiesImpl(ClusterTargets.etcdOnly(sandbox::inventory))
              .discover(new ClusterRef("v2"))
              .v2Store();

      assertThat(v2.servedBy()).containsExactly("m1", "m2", "m3");
      assertThat(v2.keys()).isEqualTo(180);
      assertThat(v2.keysWithTtl()).isEqualTo(30);
      assertThat(v2.unread()).isNull();
    }
  }

  @ParameterizedTest(name = "etcd {0}")
  @ValueSource(strings = {"3.4.23", "3.6.16"})
  void from3_4TheV2ApiIsNotServedByDefaultAnd3_6HasNone(String version) {
    try (Sandbox sandbox =
        Sandbox.create(
            new SandboxSpec(dir.resolve("v3"), "v3", 1, version), EtcdReleases.store())) {
      V2Store v2 =
          new EtcdActivitiesImpl(ClusterTargets.etcdOnly(sandbox::inventory))
              .discover(new ClusterRef("v3"))
              .v2();

      assertThat(v2)
          .as("read, and found not served (null would mean not read)")
          .isEqualTo(V2Store.NOT_SERVED);
    }
  }

  private void putV2(String clientUrl, String key, String extra) throws Exception {
    HttpRequest put =
        HttpRequest.newBuilder(URI.create(clientUrl + "/v2/keys" + key))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .PUT(HttpRequest.BodyPublishers.ofString("value=%7B%22kind%22%3A%22Pod%22%7D" + extra))
            .timeout(Duration.ofSeconds(5))
            .build();
    HttpResponse<String> answer = http.send(put, HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as(answer.body()).isIn(200, 201);
  }
}
