package io.etcdrunbooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A static field's sandbox serves the whole class; an instance field's is fresh for each test and
 * removed after it.
 */
@RealEtcd
@Timeout(value = 3, unit = TimeUnit.MINUTES)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EtcdSandboxExtensionTest {

  @RegisterExtension
  static final EtcdSandboxExtension shared =
      EtcdSandboxExtension.builder().cluster("shared").members(1).version("3.4.23").build();

  @RegisterExtension
  final EtcdSandboxExtension own =
      EtcdSandboxExtension.builder().cluster("own").members(1).version("3.4.23").build();

  private static long sharedPid;
  private static final List<Path> ownDirs = new ArrayList<>();

  @BeforeAll
  static void theClassSandboxIsUpBeforeTheBeforeAllMethods() {
    sharedPid = shared.sandbox().pidOf("m1");
    assertThat(sharedPid).isPositive();
    assertThat(shared.cluster().name()).isEqualTo("shared");
    assertThat(shared.inventoryFile()).exists();
  }

  @Test
  @Order(1)
  void eachTestHasItsOwnInstanceSandboxBesideTheClassOne() {
    assertThat(shared.sandbox().pidOf("m1")).isEqualTo(sharedPid);
    assertThat(own.sandbox().pidOf("m1")).isPositive().isNotEqualTo(sharedPid);
    assertThat(own.inventory().clusters()).containsOnlyKeys("own");
    ownDirs.add(own.sandbox().dir());
  }

  @Test
  @Order(2)
  void theInstanceSandboxOfTheTestBeforeIsClosedAndRemoved() {
    assertThat(shared.sandbox().pidOf("m1"))
        .as("the class sandbox still runs")
        .isEqualTo(sharedPid);
    assertThat(ownDirs).hasSize(1);
    assertThat(ownDirs.get(0)).doesNotExist();
    assertThat(own.sandbox().dir()).isNotEqualTo(ownDirs.get(0));
  }
}
