package io.etcdrunbooks.activities.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.activities.etcd.V2Api;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyScopeTest {

  private static final List<V2Api.Node> SHARED =
      List.of(
          new V2Api.Node("/registry/pods/default/web", "{}", null),
          new V2Api.Node("/registry2/x", "1", null),
          new V2Api.Node("/coreos.com/network/config", "{}", null),
          new V2Api.Node("/coreos.com/network/subnets/10.244.1.0-24", "{}", null),
          new V2Api.Node("/calico/v1/config/LogSeverityScreen", "info", null));

  @Test
  void onlyKeysUnderThePrefixAreWithinAndTheRestIsCountedByTopLevelPrefix() {
    KeyScope scope = new KeyScope("/registry");

    assertThat(scope.within(SHARED))
        .extracting(V2Api.Node::key)
        .containsExactly("/registry/pods/default/web");
    assertThat(scope.outside(SHARED))
        .containsExactly(
            java.util.Map.entry("/calico", 1L),
            java.util.Map.entry("/coreos.com", 2L),
            java.util.Map.entry("/registry2", 1L));
  }

  @Test
  void noPrefixTakesInEveryKeyAsRunsStartedBeforeThePrefixWasReadDid() {
    assertThat(new KeyScope(null).within(SHARED)).hasSize(5);
    assertThat(new KeyScope(null).outside(SHARED)).isEmpty();
  }
}
