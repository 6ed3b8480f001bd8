package io.etcdrunbooks.activities.host;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.activities.ssh.SshTarget;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.ServiceSpec;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The restart command run by this machine's /bin/sh with steps that only write what they did: the
 * state file a retry reads holds its token, each step's time, the stop and start times and the
 * result; a failed step ends it there, naming the step.
 */
class HostRestartScriptTest {

  @TempDir Path dir;

  @Test
  void theCommandRecordsEachStepAndItsResultUnderItsToken() throws Exception {
    HostRestart.State state =
        run(
            new RestartPlan(
                ":\n", "echo flags >> did\n", "echo select >> did\n", List.of("a -> b")));

    assertThat(Files.readAllLines(dir.resolve("did")))
        .containsExactly("stop", "flags", "select", "start");
    assertThat(state.token()).isEqualTo("0123456789abcdef");
    assertThat(state.done()).isTrue();
    assertThat(state.running()).isFalse();
    assertThat(state.changes()).containsExactly("a -> b");
    assertThat(state.steps("3.5.16"))
        .extracting(step -> step.substring(0, step.lastIndexOf(' ', step.length() - 4)))
        .containsExactly("stop", "flags", "select 3.5.16", "start");
    assertThat(state.downBeforeStartMillis()).isBetween(0L, 10_000L);
  }

  @Test
  void aStepThatFailsEndsTheCommandThereNamingIt() throws Exception {
    HostRestart.State state =
        run(new RestartPlan(":\n", ":\n", "echo 'no etcd 3.5.16 staged' >&2; exit 1\n", List.of()));

    assertThat(Files.readAllLines(dir.resolve("did"))).containsExactly("stop");
    assertThat(state.done()).isFalse();
    assertThat(state.result()).contains("failed");
    assertThat(state.failedStep()).isEqualTo("select");
    assertThat(Files.readString(dir.resolve(".etcd-runbooks-restart.log")))
        .contains("no etcd 3.5.16 staged");
  }

  /** A static pod's copied etcdutl goes however the command ends, here at a failed switch. */
  @Test
  void whatWasCopiedForTheCommandIsRemovedWhenAStepFails() throws Exception {
    Path copied = Files.createDirectories(dir.resolve("v2check"));
    Files.writeString(copied.resolve("etcdutl"), "#!/bin/sh\n");
    HostRestart.State state =
        run(
            new RestartPlan(
                ":\n",
                ":\n",
                "exit 1\n",
                List.of(),
                new V2StoreCheck.CopiedEtcdutl(copied.toString()).removal()));

    assertThat(state.failedStep()).isEqualTo("select");
    assertThat(copied).doesNotExist();
  }

  @Test
  void aCheckThatFailsStartsTheMemberAgainBeforeAnythingIsSwitched() throws Exception {
    HostRestart.State state =
        run(
            new RestartPlan(
                "echo 'custom v2 content'; step_start; exit 1\n",
                "echo flags >> did\n",
                "echo select >> did\n",
                List.of()));

    assertThat(Files.readAllLines(dir.resolve("did"))).containsExactly("stop", "start");
    assertThat(state.failedStep()).isEqualTo(V2StoreCheck.STEP);
    assertThat(Files.readString(dir.resolve(".etcd-runbooks-restart.log")))
        .contains("custom v2 content");
  }

  @Test
  void theCheckRunsOnlyWhenAMemberLeaves3_5For3_6OrLater() {
    assertThat(V2StoreCheck.leaves35("3.5.35", "3.6.16")).isTrue();
    assertThat(V2StoreCheck.leaves35("3.5.35", "3.7.3")).isTrue();
    assertThat(V2StoreCheck.leaves35("3.5.30", "3.5.35")).isFalse();
    assertThat(V2StoreCheck.leaves35("3.6.16", "3.7.3")).isFalse();
    assertThat(V2StoreCheck.leaves35("3.6.16", "3.5.35")).isFalse();
    assertThat(V2StoreCheck.leaves35("3.4.23", "3.5.30")).isFalse();
  }

  private HostRestart.State run(RestartPlan plan) throws Exception {
    MemberSpec member =
        new MemberSpec("m1", "127.0.0.1", 22, "http://c", "http://p", "d", "i", dir.toString());
    MemberHost host = new MemberHost("c1", member, new SshTarget("127.0.0.1", 22, "u", null, null));
    HostRestart restart = new HostRestart(null, new ServiceSpec(ServiceSpec.PLAIN, null));
    String script =
        "cd " + dir + "\n" + restart.script(host, new Steps(), plan, "0123456789abcdef", "3.5.16");
    Process sh = new ProcessBuilder("/bin/sh", "-c", script).directory(dir.toFile()).start();
    assertThat(sh.waitFor(30, TimeUnit.SECONDS)).isTrue();
    String file = Files.readString(dir.resolve(".etcd-runbooks-restart"));
    return HostRestart.State.parse(file + "\nnow=" + System.currentTimeMillis() + "\n");
  }

  /** Stop and start that only say they ran, in the directory the command runs in. */
  private final class Steps implements ServiceManager {
    @Override
    public String stopScript(MemberHost host) {
      return "cd " + dir + " && echo stop >> did\n";
    }

    @Override
    public String launchScript(MemberHost host) {
      return "cd " + dir + " && echo start >> did\n";
    }

    @Override
    public boolean isRunning(MemberHost host) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void start(MemberHost host) {
      throw new UnsupportedOperationException();
    }

    @Override
    public void stop(MemberHost host) {
      throw new UnsupportedOperationException();
    }

    @Override
    public OptionalLong mainPid(MemberHost host) {
      throw new UnsupportedOperationException();
    }

    @Override
    public String logTail(MemberHost host, int lines) {
      throw new UnsupportedOperationException();
    }
  }
}
