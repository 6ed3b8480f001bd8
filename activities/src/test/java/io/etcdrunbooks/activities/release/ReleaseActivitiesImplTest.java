package io.etcdrunbooks.activities.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.ReleaseSource;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.temporal.failure.ApplicationFailure;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class ReleaseActivitiesImplTest {

  private final Inventory inventory =
      new Inventory(
          new ReleaseSource(LocalDirReleaseStore.defaultDir().toString(), null, Map.of(), null),
          Map.of(
              "prod",
              new ClusterSpec("prod", List.of(), null, null, null, "/backups", List.of(), null)));
  private final ReleaseActivitiesImpl releases =
      new ReleaseActivitiesImpl(
          ClusterTargets.etcdOnly(() -> inventory),
          new LocalDirReleaseStore(LocalDirReleaseStore.defaultDir()));

  @Test
  void offersTheCachedVersionsOldestFirst() {
    assertThat(releases.availableVersions(new ClusterRef("prod")))
        .containsSubsequence("3.3.25", "3.4.23", "3.5.16", "3.5.30");
  }

  @Test
  void anUnknownClusterIsNotRetried() {
    assertThatThrownBy(() -> releases.availableVersions(new ClusterRef("staging")))
        .isInstanceOfSatisfying(
            ApplicationFailure.class,
            f -> {
              assertThat(f.getType()).isEqualTo("UnknownCluster");
              assertThat(f.isNonRetryable()).isTrue();
            })
        .hasMessageContaining("staging");
  }
}
