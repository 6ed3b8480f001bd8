package io.etcdrunbooks.workflows.testing;

import io.etcdrunbooks.workflows.activities.HostActivities;
import io.etcdrunbooks.workflows.model.ClientConnections;
import io.etcdrunbooks.workflows.model.MemberFlags;
import io.etcdrunbooks.workflows.model.MemberRef;
import java.util.List;

/**
 * {@link HostActivities} with every method throwing: a fake implements this and overrides only what
 * its runbook calls, so a call it does not expect fails naming the method. A fake that still
 * declares a stub of its own compiles too; a method added to the interface gets its default here.
 */
public interface UnsupportedHostActivities extends HostActivities {

  @Override
  default boolean awaitRestartSettled(MemberRef member) {
    throw new UnsupportedOperationException("HostActivities.awaitRestartSettled is not faked here");
  }

  @Override
  default List<String> checkAccess(HostAccessRequest request) {
    throw new UnsupportedOperationException("HostActivities.checkAccess is not faked here");
  }

  @Override
  default ClientConnections clientConnections(MemberRef member) {
    throw new UnsupportedOperationException("HostActivities.clientConnections is not faked here");
  }

  @Override
  default void installVersion(InstallRequest request) {
    throw new UnsupportedOperationException("HostActivities.installVersion is not faked here");
  }

  @Override
  default String installedVersion(MemberRef member) {
    throw new UnsupportedOperationException("HostActivities.installedVersion is not faked here");
  }

  @Override
  default void launchMember(MemberRef member) {
    throw new UnsupportedOperationException("HostActivities.launchMember is not faked here");
  }

  @Override
  default String logTail(LogTailRequest request) {
    throw new UnsupportedOperationException("HostActivities.logTail is not faked here");
  }

  @Override
  default MemberFlags memberFlags(MemberRef member) {
    throw new UnsupportedOperationException("HostActivities.memberFlags is not faked here");
  }

  @Override
  default RestartOutcome restartMember(RestartRequest request) {
    throw new UnsupportedOperationException("HostActivities.restartMember is not faked here");
  }

  @Override
  default boolean restoreMemberFlags(RestoreMemberFlagsRequest request) {
    throw new UnsupportedOperationException("HostActivities.restoreMemberFlags is not faked here");
  }

  @Override
  default List<String> setMemberFlags(SetMemberFlagsRequest request) {
    throw new UnsupportedOperationException("HostActivities.setMemberFlags is not faked here");
  }

  @Override
  default String stageVersion(InstallRequest request) {
    throw new UnsupportedOperationException("HostActivities.stageVersion is not faked here");
  }

  @Override
  default void startMember(MemberRef member) {
    throw new UnsupportedOperationException("HostActivities.startMember is not faked here");
  }

  @Override
  default void stopMember(MemberRef member) {
    throw new UnsupportedOperationException("HostActivities.stopMember is not faked here");
  }

  @Override
  default SwitchOutcome switchVersion(InstallRequest request) {
    throw new UnsupportedOperationException("HostActivities.switchVersion is not faked here");
  }

  @Override
  default List<String> translateFlags(TranslateFlagsRequest request) {
    throw new UnsupportedOperationException("HostActivities.translateFlags is not faked here");
  }

  @Override
  default void watchMember(WatchRequest request) {
    throw new UnsupportedOperationException("HostActivities.watchMember is not faked here");
  }

  @Override
  default String snapshotPast(SnapshotPastRequest request) {
    throw new UnsupportedOperationException("HostActivities.snapshotPast is not faked here");
  }
}
