package io.etcdrunbooks.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FleetSelectorTest {

  private static ClusterSpec cluster(String name, Map<String, String> labels) {
    return new ClusterSpec(name, List.of(), null, null, null, "", List.of(), null, null, labels);
  }

  private static final Inventory INVENTORY =
      new Inventory(
          null,
          Map.of(
              "prod-eu-1", cluster("prod-eu-1", Map.of("env", "prod", "region", "eu")),
              "prod-us-1", cluster("prod-us-1", Map.of("env", "prod", "region", "us")),
              "dev-1", cluster("dev-1", Map.of("env", "dev"))));

  @Test
  void everyTermMustMatchAndTheClustersComeByName() {
    assertThat(FleetSelector.parse("env=prod").select(INVENTORY))
        .extracting(ClusterSpec::name)
        .containsExactly("prod-eu-1", "prod-us-1");
    assertThat(FleetSelector.parse("env=prod, region=us").select(INVENTORY))
        .extracting(ClusterSpec::name)
        .containsExactly("prod-us-1");
  }

  @Test
  void theClusterKeyMatchesTheNameAndAStarMatchesAll() {
    assertThat(FleetSelector.parse("cluster=dev-1").select(INVENTORY))
        .extracting(ClusterSpec::name)
        .containsExactly("dev-1");
    assertThat(FleetSelector.parse("*").select(INVENTORY)).hasSize(3);
  }

  @Test
  void aTermThatIsNotKeyEqualsValueIsRefusedByName() {
    assertThatThrownBy(() -> FleetSelector.parse("env=prod,region"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'region' is not key=value");
    assertThatThrownBy(() -> FleetSelector.parse(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("empty selector");
  }
}
