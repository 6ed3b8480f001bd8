package io.etcdrunbooks.activities.host;

import io.etcdrunbooks.activities.host.BinaryInstaller.ChecksumMismatchException;
import io.etcdrunbooks.activities.ssh.HostKeyRejectedException;
import io.etcdrunbooks.activities.ssh.SshCommandException;
import io.etcdrunbooks.activities.ssh.SshException;
import io.temporal.failure.ApplicationFailure;
import java.util.function.Supplier;

/**
 * Turns what went wrong on a host into the activity failure the runbooks expect: non-retryable when
 * no retry can mend it (a refused host key, etcd exiting right after its start, binaries that do
 * not match), retryable otherwise; the message names the member, its host, what was being done and
 * the next step.
 */
final class HostFailures {

  private HostFailures() {}

  static <T> T translate(MemberHost host, String what, Supplier<T> action) {
    try {
      return action.get();
    } catch (ApplicationFailure e) {
      throw e;
    } catch (HostKeyRejectedException e) {
      throw nonRetryable(
          host,
          what,
          e,
          "HostKeyRejected",
          "fix the known_hosts file named above (after checking the host's key out"
              + " of band), then run the runbook again");
    } catch (MemberStartFailedException e) {
      throw nonRetryable(
          host,
          what,
          e,
          "MemberStartFailed",
          "fix the cause in the log above (a port in use, a bad setting), or"
              + " install the previous version, and start again");
    } catch (ChecksumMismatchException e) {
      throw nonRetryable(
          host, what, e, "ChecksumMismatch", "check the host's disk, then run the runbook again");
    } catch (SshCommandException e) {
      throw ApplicationFailure.newFailureWithCause(
          message(
              host,
              what,
              e,
              "it is retried; if it keeps failing, run the command by" + " hand on the host"),
          "HostCommandFailed",
          e);
    } catch (SshException e) {
      throw ApplicationFailure.newFailureWithCause(
          message(
              host,
              what,
              e,
              "it is retried; check that the host is up and its SSH" + " server reachable"),
          "HostUnreachable",
          e);
    }
  }

  /**
   * The version's binaries from the release store; an unknown version or a bad checksum is a
   * non-retryable failure.
   */
  static java.nio.file.Path binDir(
      io.etcdrunbooks.activities.release.ReleaseStore releases, String version) {
    try {
      return releases.binDir(version);
    } catch (IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), "UnknownVersion");
    } catch (io.etcdrunbooks.activities.release.ReleaseChecksumException e) {
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), "ReleaseChecksumMismatch");
    }
  }

  private static ApplicationFailure nonRetryable(
      MemberHost host, String what, Exception e, String type, String nextStep) {
    return ApplicationFailure.newNonRetryableFailureWithCause(
        message(host, what, e, nextStep), type, e);
  }

  private static String message(MemberHost host, String what, Exception e, String nextStep) {
    return "cannot "
        + what
        + " for "
        + host.describe()
        + ": "
        + e.getMessage()
        + "\nnext step: "
        + nextStep;
  }
}
