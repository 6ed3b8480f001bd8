package io.etcdrunbooks.workflows.upgrade;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.workflows.common.RunbookIds;
import io.etcdrunbooks.workflows.common.RunbookPayloads;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import io.etcdrunbooks.workflows.testing.RecordedHistories;
import io.temporal.api.common.v1.Payload;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.common.converter.DataConverter;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Replays the history of a real upgrade (3.3.25 -> 3.5.30 of a 3-member sandbox, recorded by the
 * worker module's UpgradeClusterTest into worker/target/recorded-upgrade-history.json) against
 * today's workflow code. A change that would break running upgrades fails here; guard it with
 * Workflow.getVersion and record a new history beside this one.
 */
class UpgradeReplayTest {

  private static final List<String> UPGRADES =
      List.of(
          "upgrade-3.3.25-to-3.5.30.json",
          "upgrade-3.3.25-to-3.5.30-staged-and-watched.json",
          "upgrade-3.3.25-to-3.5.30-restart-in-one-activity.json",
          "upgrade-3.3.25-to-3.5.30-restart-reads-reused.json",
          "upgrade-3.3.25-to-3.5.30-id-and-hosts-checked.json",
          "upgrade-3.4.23-to-3.5.16-approved.json");

  /**
   * The plans recorded in real upgrades' results (a fleet reads them back from its child runs) read
   * into today's typed plan and are written again byte for byte alike: the versions stay plain
   * strings on the wire.
   */
  @Test
  void theRecordedResultsPlansReadAndWriteAsRecorded() throws Exception {
    DataConverter converter = RunbookPayloads.converter();
    ObjectMapper json = new ObjectMapper();
    for (String name : UPGRADES) {
      String text;
      try (InputStream in = getClass().getClassLoader().getResourceAsStream("histories/" + name)) {
        text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      }
      Payload recorded =
          WorkflowExecutionHistory.fromJson(text).getEvents().stream()
              .filter(HistoryEvent::hasWorkflowExecutionCompletedEventAttributes)
              .map(e -> e.getWorkflowExecutionCompletedEventAttributes().getResult().getPayloads(0))
              .findFirst()
              .orElseThrow();
      UpgradeResult result =
          converter.fromPayload(recorded, UpgradeResult.class, UpgradeResult.class);
      assertThat(result.plan().steps()).as(name).isNotEmpty();
      assertThat(result.plan().targetVersion()).as(name).isInstanceOf(EtcdVersion.class);
      JsonNode before = json.readTree(recorded.getData().toStringUtf8()).get("plan");
      JsonNode after =
          json.readTree(converter.toPayload(result).orElseThrow().getData().toStringUtf8())
              .get("plan");
      assertThat(after).as(name).isEqualTo(before);
    }
  }

  @Test
  void todaysCodeReplaysARecordedFullLadderUpgrade() throws Exception {
    RecordedHistories.replayResource(
        "histories/upgrade-3.3.25-to-3.5.30.json", UpgradeClusterWorkflowImpl.class);
  }

  /**
   * The same ladder recorded with the binaries staged before the first stop, the preflight's reads
   * in parallel, and each restart in one activity followed by readiness while the process is
   * watched (its cancelled watch included).
   */
  @Test
  void todaysCodeReplaysAFullLadderUpgradeRecordedWithStagingAndWatchedRestarts() throws Exception {
    RecordedHistories.replay(
        "histories/upgrade-3.3.25-to-3.5.30-staged-and-watched.json",
        "change-sandbox",
        UpgradeClusterWorkflowImpl.class);
  }

  /**
   * The same ladder recorded with each restart in one activity from the stop until ready, the
   * checks overlapped (preflight reads at once, staging beside the backup, the postflight's reads
   * during the cluster version wait) and leadership handed back to each rung's leader.
   */
  @Test
  void todaysCodeReplaysAFullLadderUpgradeRecordedWithRestartsInOneActivity() throws Exception {
    RecordedHistories.replay(
        "histories/upgrade-3.3.25-to-3.5.30-restart-in-one-activity.json",
        "change-sandbox",
        UpgradeClusterWorkflowImpl.class);
  }

  /**
   * The same ladder recorded with each member after a rung's first checked on the cluster its
   * predecessor's restart read once it was ready, the keyspace read beside the backup and shown
   * unchanged by every member's hashkv, with sticky execution on.
   */
  @Test
  void todaysCodeReplaysAFullLadderUpgradeRecordedReusingTheRestartsReads() throws Exception {
    RecordedHistories.replay(
        "histories/upgrade-3.3.25-to-3.5.30-restart-reads-reused.json",
        "change-sandbox",
        UpgradeClusterWorkflowImpl.class);
  }

  /**
   * The same ladder recorded with the change-id-guard and host-access-preflight markers, under its
   * id change-sandbox.
   */
  @Test
  void todaysCodeReplaysAFullLadderUpgradeRecordedWithTheIdAndHostChecks() throws Exception {
    RecordedHistories.replay(
        "histories/upgrade-3.3.25-to-3.5.30-id-and-hosts-checked.json",
        "change-sandbox",
        UpgradeClusterWorkflowImpl.class);
  }

  /**
   * Replayed under another id, the same history meets the change-id check, which the recorded run
   * passed.
   */
  @Test
  void theRecordedUpgradeUnderAnotherIdIsNotReplayed() {
    assertThatThrownBy(
            () ->
                RecordedHistories.replay(
                    "histories/upgrade-3.3.25-to-3.5.30-id-and-hosts-checked.json",
                    "web-ui-1",
                    UpgradeClusterWorkflowImpl.class))
        .hasMessageContaining("NonDeterministicException");
  }

  /**
   * The guard can fail: the same recorded history against an upgrade whose code dropped its
   * consistency check without Workflow.getVersion is refused as non-deterministic.
   */
  @Test
  void aChangeWithoutGetVersionDoesNotReplay() {
    assertThatThrownBy(
            () ->
                RecordedHistories.replayResource(
                    "histories/upgrade-3.3.25-to-3.5.30.json", WithoutConsistencyCheck.class))
        .hasMessageContaining("NonDeterministicException");
  }

  /** The upgrade as it is, but for one activity call taken out of its preflight, unguarded. */
  public static final class WithoutConsistencyCheck
      extends io.etcdrunbooks.workflows.common.RunbookWorkflow implements UpgradeClusterWorkflow {
    private final io.etcdrunbooks.workflows.phases.Activities activities =
        new io.etcdrunbooks.workflows.phases.Activities();

    public WithoutConsistencyCheck() {
      super(TYPE);
    }

    @Override
    public UpgradeResult upgrade(UpgradeRequest request) {
      return runChange(
          request.cluster(),
          request.dryRun(),
          () -> {
            UpgradeRun run =
                new UpgradeRun(
                    new io.etcdrunbooks.workflows.phases.RunContext(
                        activities, progress, this, request.cluster()),
                    request);
            run.state = activities.etcd.discover(run.ctx.ref());
            run.running =
                EtcdVersion.parse(
                    io.etcdrunbooks.workflows.phases.ClusterChecks.runningVersion(run.state));
            run.ladder =
                VersionLadder.plan(
                    run.running,
                    EtcdVersion.parse(request.targetVersion()),
                    activities.releases.availableVersions(run.ctx.ref()));
            UpgradePhases.RUNNER.phases().stream()
                .skip(2)
                .filter(p -> p.runsWhen().test(run))
                .forEach(
                    p -> {
                      progress.phase(p.name());
                      p.body().accept(run);
                    });
            return run.result();
          });
    }
  }

  /**
   * requireApproval, a viewer's refused and an operator's accepted approve, the controls memo
   * (RunbookControlTest).
   */
  @Test
  void todaysCodeReplaysAnUpgradeThatWaitedForApproval() throws Exception {
    RecordedHistories.replayResource(
        "histories/upgrade-3.4.23-to-3.5.16-approved.json", UpgradeClusterWorkflowImpl.class);
  }

  /**
   * A cancel request while a member was being switched: the member finished, then the runbook
   * stopped (RunbookControlTest).
   */
  @Test
  void todaysCodeReplaysAnUpgradeCancelledInTheMiddleOfAMember() throws Exception {
    RecordedHistories.replayResource(
        "histories/upgrade-3.5.16-to-3.5.30-cancelled-mid-member.json",
        UpgradeClusterWorkflowImpl.class);
  }

  /**
   * Upgrades whose member failed on the new version, recorded in memory by UpgradeCompensationTest
   * with the code that compensated by hand (UpgradeCompensation.failWith): the failed member's log
   * read, the cluster discovered, then the rung's members put back newest first, each after the
   * cluster version is read again. The phase runner compensates the same way.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "upgrade-in-memory-follower-failed-rung-put-back",
        "upgrade-in-memory-leader-failed-followers-put-back"
      })
  void todaysCodeReplaysAnUpgradeWhoseRungWasPutBack(String history) throws Exception {
    RecordedHistories.replay(
        "histories/" + history + ".json",
        RunbookIds.changing("c"),
        UpgradeClusterWorkflowImpl.class);
  }

  /**
   * Upgrades that failed, recorded in memory by UpgradeCompensationTest and UpgradeControlFlowTest
   * at the commit before a change, so that its old branch is replayed: the leader's hand-over
   * failing before the saga (3d3ca1d: the failed member put back first, then the others in switch
   * order) and before the cluster version was read again before each member put back (6972fb4); the
   * last member not ready after the cluster version moved, before that ended UpgradedMemberDegraded
   * (b2cabfa); a member's flags unreadable in the preflight, before the flags were read all at once
   * (4b3ff79). The replay ends each run as it ended: only the failure tells the degraded ending's
   * branches apart, both issue the same commands.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "upgrade-in-memory-leader-failed-before-saga-compensation",
        "upgrade-in-memory-leader-failed-before-recheck-before-put-back",
        "upgrade-in-memory-last-member-not-ready-before-degraded-ending",
        "upgrade-in-memory-flags-unreadable-before-preflight-reads-in-parallel"
      })
  void todaysCodeReplaysAnUpgradeThatFailedBeforeAChangeToItsEnding(String history)
      throws Exception {
    RecordedHistories.Endings endings =
        RecordedHistories.replayEndings(
            "histories/" + history + ".json",
            RunbookIds.changing("c"),
            UpgradeClusterWorkflowImpl.class);
    assertThat(endings.replayed()).isNotEmpty().isEqualTo(endings.recorded());
  }
}
