package io.etcdrunbooks.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.inventory.InventoryLoader;
import io.etcdrunbooks.inventory.MemberSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(value = 3, unit = TimeUnit.MINUTES)
class SandboxTest {

  @TempDir Path tmp;

  @Test
  void threeMembersOn3_4ComeUpHealthyWithTheirOwnProcesses() throws Exception {
    Sandbox sandbox;
    List<Long> pids;
    try (Sandbox s = Sandbox.create(new SandboxSpec(tmp.resolve("sb"), "sandbox", 3, "3.4.23"), EtcdReleases.store())) {
      sandbox = s;
      pids = List.of(s.pidOf("m1"), s.pidOf("m2"), s.pidOf("m3"));
      assertThat(pids).allMatch(pid -> pid > 0).doesNotHaveDuplicates();
      assertThat(s.cluster().members()).extracting(MemberSpec::name).containsExactly("m1", "m2", "m3");
      assertThat(InventoryLoader.load(s.inventoryFile()).cluster("sandbox")).isEqualTo(s.cluster());
      assertThat(s.inventory().releases().localDir()).isEqualTo(EtcdReleases.dir().toAbsolutePath().toString());
      for (MemberSpec m : s.cluster().members()) {
        assertThat(Path.of(m.installDir(), "current")).isSymbolicLink();
        assertThat(Files.readSymbolicLink(Path.of(m.installDir(), "current"))).hasToString("versions/3.4.23");
        assertThat(Path.of(m.dataDir(), "member")).isDirectory();
      }
      assertThat(s.hostRoot("m2").resolve("etc/etcd/etcd.env")).content().contains("ETCD_NAME=m2", "ETCD_INITIAL_CLUSTER_STATE=new");
    }
    assertThat(List.of(sandbox.pidOf("m1"), sandbox.pidOf("m2"), sandbox.pidOf("m3"))).containsOnly(-1L);
    sandbox.close(); // idempotent
  }

  @Test
  void oneMemberOn3_3ComesUpHealthy() {
    try (Sandbox s = Sandbox.create(new SandboxSpec(tmp.resolve("old"), "old", 1, "3.3.25"), EtcdReleases.store())) {
      assertThat(s.pidOf("m1")).isPositive();
      s.kill("m1");
      assertThat(s.pidOf("m1")).isEqualTo(-1);
    }
  }
}
