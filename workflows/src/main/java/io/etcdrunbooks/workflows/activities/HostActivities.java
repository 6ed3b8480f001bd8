package io.etcdrunbooks.workflows.activities;

import io.etcdrunbooks.workflows.model.ClientConnections;
import io.etcdrunbooks.workflows.model.ClusterState;
import io.etcdrunbooks.workflows.model.MemberFlags;
import io.etcdrunbooks.workflows.model.MemberRef;
import io.temporal.activity.ActivityInterface;
import java.util.List;
import java.util.Map;

/**
 * What the runbooks do on a member's host over SSH, through the cluster's service manager. Each
 * call looks at the host first and does nothing when the work is already done.
 */
@ActivityInterface
public interface HostActivities {

  /** Version of the etcd binary the member's service is set to run (not necessarily running). */
  String installedVersion(MemberRef member);

  /**
   * Stops the member's etcd gracefully (a leader hands over leadership on SIGTERM). No-op when
   * stopped. Live: recovery, migration, restore and TLS call it; a member's version switch only on
   * its replay-only generation (LegacyMemberSwitch).
   */
  void stopMember(MemberRef member);

  /**
   * Puts the version's binaries on the host (checksum-verified) and points the service at them.
   * Live: restore calls it; a member's version switch only on its replay-only generation.
   */
  void installVersion(InstallRequest request);

  /**
   * Starts the member's etcd and waits to see it stay up a moment. No-op when it runs. Live:
   * recovery, migration, restore and TLS call it; a member's version switch only on its replay-only
   * generation.
   */
  void startMember(MemberRef member);

  /**
   * Puts the version's binaries on the member's host, SHA-256 checked, without pointing its service
   * at them, so that the member's restart does not wait for an upload. No-op when they are there;
   * returns what was done.
   */
  String stageVersion(InstallRequest request);

  /**
   * Starts the member's etcd and returns once its process exists, without the stay-up wait of
   * {@link #startMember}: the runbook watches it ({@link #watchMember}) while it waits for the
   * member's health. No-op when it runs. Not a runbook step: no workflow has ever scheduled it;
   * {@link #switchVersion} runs it inside its own activity.
   */
  void launchMember(MemberRef member);

  /**
   * Watches the member's running etcd for up to {@code seconds}: fails, non-retryably, with the end
   * of its log as soon as it exits or is restarted; returns when it ran throughout. Cancelled by
   * the runbook once the member is ready.
   */
  @ReplayOnly(changeId = "restart-in-one-activity", since = "2026-11-26")
  void watchMember(WatchRequest request);

  record WatchRequest(String cluster, String member, int seconds) {}

  /**
   * A member's restart on a version in one call, so that its down time holds no round trips between
   * steps: stop ({@link #stopMember}), renamed flags translated where they live ({@link
   * #translateFlags}), the version selected ({@link #installVersion}; staged before, see {@link
   * #stageVersion}) and etcd started ({@link #launchMember}). Each step skips what is done, so a
   * retry finishes the restart. Readiness is the caller's next step.
   */
  @ReplayOnly(changeId = "restart-in-one-activity", since = "2026-11-26")
  SwitchOutcome switchVersion(InstallRequest request);

  /**
   * @param flagChanges renamed flags translated ("--debug -> --log-level=debug")
   * @param steps each step with its time ("stop 310 ms")
   * @param beforeStopMillis the call's checks before the member stopped: the part of the call it
   *     was not down for
   */
  record SwitchOutcome(List<String> flagChanges, List<String> steps, long beforeStopMillis) {}

  /**
   * A member's whole restart on a version in one call, from its stop until it is ready: {@link
   * #switchVersion}'s steps, then the member's readiness (healthy, caught up with the leader,
   * reporting the version) while its process is watched, so that no Temporal round trip falls
   * inside its down time. A retry after a lost worker finds the restart done and only waits for
   * readiness. Fails non-retryably when etcd exits after its start (with its last log lines) or is
   * not ready within {@code timeoutSeconds} of the call (a retry counts from the first attempt);
   * heartbeats throughout.
   */
  RestartOutcome restartMember(RestartRequest request);

  /**
   * Waits, heartbeating, until no restart command runs on the member's host: one another runbook
   * launched there goes on after that runbook ended (it is detached from the worker), and what the
   * member is is known only once it has. Returns whether there was one to wait for.
   */
  boolean awaitRestartSettled(MemberRef member);

  record RestartRequest(String cluster, String member, String version, int timeoutSeconds) {}

  /**
   * @param flagChanges renamed flags translated ("--debug -> --log-level=debug")
   * @param steps each step with its time ("stop 310 ms", "ready 120 ms")
   * @param downMillis from the stop until the member was seen ready, measured on the worker; when
   *     this call found the member already restarted (a retry), from its start
   * @param restarted false when the member already ran the version and this call only saw it ready
   * @param after the cluster as read once the member was ready, over the connections its wait made,
   *     so that the next member's checks need no read of their own; null when that read failed (and
   *     in results recorded before it was added)
   */
  record RestartOutcome(
      List<String> flagChanges,
      List<String> steps,
      long downMillis,
      boolean restarted,
      ClusterState after) {}

  /** Last lines of the member's etcd log. */
  String logTail(LogTailRequest request);

  /**
   * Logs in to every member's host and every control-plane host of the cluster, each over a new
   * session whose host key is checked against known_hosts as it is now, and runs a harmless command
   * showing that the runbooks' commands can run there (the service manager's commands, sudo when
   * the inventory uses it, the install and service directories). Touches nothing. Returns one
   * problem per host that fails, naming the member or host, its address and what to do; empty when
   * every host is usable.
   */
  List<String> checkAccess(HostAccessRequest request);

  /**
   * The command line and {@code ETCD_*} environment of the member's running etcd; {@code running}
   * false when none runs.
   */
  MemberFlags memberFlags(MemberRef member);

  /**
   * The TCP connections established to the member's client port(s) now, read on its host with
   * {@code ss} (etcd names no client in its metrics), each address classified by the inventory: a
   * member's, a kube-apiserver host's, the worker's, the member's own host's, or unmanaged (a CNI's
   * kvstore, Prometheus, a backup job). Read-only. A host without {@code ss} or a member not
   * running gives {@code unreadable} instead of a failure.
   */
  ClientConnections clientConnections(MemberRef member);

  /**
   * Translates the member's flags (FlagTranslations.forTarget) where they live, for the version it
   * is about to run, up or down: a plain member's environment file, a static pod's manifest; the
   * previous file is kept beside it. Returns what changes ("--debug -> --log-level=debug") and the
   * settings left out with why, written only when {@code apply}. A flag the version cannot be given
   * (an unknown feature gate) fails, non-retryably, naming it and the file (FlagsNotTranslatable),
   * as does a systemd member with a renamed flag on its unit's command line.
   */
  List<String> translateFlags(TranslateFlagsRequest request);

  /**
   * Sets these flags (name to value, "--cert-file" -> "/etc/etcd/pki/server.crt") where the
   * member's flags live (a plain member's environment file, a static pod's manifest, running or
   * stopped), keeping the file as it was the first time for {@code changeId}. Does not restart the
   * member. Returns what changes ("(none) -> --cert-file=..."); written only when {@code apply},
   * and nothing when every flag has its value already. A systemd member fails, non-retryably.
   */
  List<String> setMemberFlags(SetMemberFlagsRequest request);

  /**
   * Puts back the flags file kept by {@link #setMemberFlags} for {@code changeId}; false when none
   * was kept. Does not restart the member.
   */
  boolean restoreMemberFlags(RestoreMemberFlagsRequest request);

  record SetMemberFlagsRequest(
      String cluster, String member, Map<String, String> flags, String changeId, boolean apply) {}

  record RestoreMemberFlagsRequest(String cluster, String member, String changeId) {}

  /**
   * Makes the member's newest raft snapshot on disk cover raft index {@code index}, restarting it
   * on the version it runs with --snapshot-count=1 until it does, its flags file put back after
   * (the process keeps the setting until its next restart). Nothing when a snapshot covers it
   * already. etcd 3.7 cannot replay the v2-encoded entries etcd 3.5 wrote to the WAL, so before a
   * member moves from 3.6 to 3.7 they must lie behind its newest snapshot. Returns what it did;
   * fails non-retryably (MemberNotReady) when no such snapshot appears within {@code
   * timeoutSeconds}. Heartbeats.
   */
  String snapshotPast(SnapshotPastRequest request);

  record SnapshotPastRequest(String cluster, String member, long index, int timeoutSeconds) {}

  record InstallRequest(String cluster, String member, String version) {}

  /**
   * @param apply write the translation; false: only say what would change
   */
  record TranslateFlagsRequest(String cluster, String member, String version, boolean apply) {}

  record LogTailRequest(String cluster, String member, int lines) {}

  /**
   * @param exceptMembers members whose hosts are not required (a failed member's host may be down),
   *     and control-plane hosts named here (a machine lost with its apiserver)
   * @param controlPlaneEdits the runbook edits the kube-apiserver manifests (restore, member
   *     replacement): their directories must be writable by the SSH user
   */
  record HostAccessRequest(String cluster, List<String> exceptMembers, boolean controlPlaneEdits) {}
}
