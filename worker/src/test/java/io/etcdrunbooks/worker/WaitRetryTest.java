package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.activities.support.WaitDeadline;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.activities.HostActivities;
import io.etcdrunbooks.workflows.activities.HostActivities.RestartOutcome;
import io.etcdrunbooks.workflows.activities.HostActivities.RestartRequest;
import io.etcdrunbooks.workflows.upgrade.UpgradeResult;
import io.temporal.activity.Activity;
import io.temporal.activity.ActivityInfo;
import io.temporal.failure.ApplicationFailure;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A wait that loses its connection to etcd (or its worker) is attempted again and finishes the same
 * wait, measured from the first attempt, instead of failing the runbook mid-upgrade.
 */
@RealEtcd
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class WaitRetryTest {

  @TempDir Path dir;

  @Test
  void anUpgradeWhoseMemberWaitFailsOnceStillFinishesAndTheRetryKeepsTheFirstAttemptsClock()
      throws Exception {
    FirstWaitFails faulty = new FirstWaitFails();
    try (SandboxRunbooks runbooks =
            SandboxRunbooks.startWrappingHost(dir, "3.4.23", faulty::around);
        ClusterProbe probe = new ClusterProbe(runbooks.sandbox.cluster())) {
      probe.putMany("/registry/configmaps/c-", 100);
      var keys = probe.dump(0);

      UpgradeResult result = runbooks.upgradeStub().upgrade(runbooks.request("3.5.16"));

      assertThat(result.memberVersions())
          .containsOnly(
              Map.entry("m1", "3.5.16"), Map.entry("m2", "3.5.16"), Map.entry("m3", "3.5.16"));
      assertThat(probe.dump(0)).containsAllEntriesOf(keys);
      long revision = probe.revision();
      assertThat(probe.hashKvByMember(revision).values())
          .hasSize(3)
          .containsOnly(probe.hashKvByMember(revision).get("m1"));
      assertThat(faulty.attempts)
          .as("attempts of the first member's restart")
          .containsExactly(1, 2);
      assertThat(faulty.retryScheduledAfterFirstMillis)
          .as(
              "the retry's attempt was scheduled after the first, and"
                  + " ActivityInfo keeps the first's time, which the wait's deadline counts from")
          .isGreaterThanOrEqualTo(2000);
      assertThat(faulty.twoSecondWaitOver)
          .as("on the retry, a 2 s wait begun by the first attempt is over")
          .isTrue();
      assertThat(faulty.minuteWaitOver).as("on the retry, a 60 s wait is not").isFalse();
    }
  }

  /**
   * Real host activities, but the first attempt of the first member's restart loses its connection
   * 2 s after the member was restarted (the restart and its readiness wait are one activity).
   */
  static final class FirstWaitFails {
    final List<Integer> attempts = new CopyOnWriteArrayList<>();
    volatile long retryScheduledAfterFirstMillis = -1;

    /**
     * On the retry: whether a 2 s wait had already ended, and a 60 s one not (the first attempt
     * spent over 2 s).
     */
    volatile boolean twoSecondWaitOver;

    volatile boolean minuteWaitOver = true;
    private final AtomicBoolean failedOnce = new AtomicBoolean();

    HostActivities around(HostActivities real) {
      return (HostActivities)
          Proxy.newProxyInstance(
              HostActivities.class.getClassLoader(),
              new Class<?>[] {HostActivities.class},
              (proxy, method, args) -> {
                if (method.getName().equals("restartMember")) return restart(real, args[0]);
                try {
                  return method.invoke(real, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              });
    }

    private RestartOutcome restart(HostActivities real, Object request) {
      ActivityInfo info = Activity.getExecutionContext().getInfo();
      if (info.getAttempt() == 1 && failedOnce.compareAndSet(false, true)) {
        attempts.add(1);
        real.restartMember((RestartRequest) request);
        Activity.getExecutionContext().heartbeat("waiting");
        Heartbeats.pause(2000);
        throw ApplicationFailure.newFailure(
            "status of member '"
                + ((RestartRequest) request).member()
                + "': connection reset (injected)",
            "MembersUnreachable");
      }
      if (info.getAttempt() > 1) {
        attempts.add(info.getAttempt());
        retryScheduledAfterFirstMillis =
            info.getCurrentAttemptScheduledTimestamp() - info.getScheduledTimestamp();
        twoSecondWaitOver = WaitDeadline.afterSeconds(2).passed();
        minuteWaitOver = WaitDeadline.afterSeconds(60).passed();
      }
      return real.restartMember((RestartRequest) request);
    }
  }
}
