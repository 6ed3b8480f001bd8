package io.etcdrunbooks.activities.host;

import io.etcdrunbooks.activities.ssh.ExecResult;
import io.etcdrunbooks.activities.ssh.SshCommandException;
import io.etcdrunbooks.activities.ssh.SshTarget;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;

/** A member and the host it runs on, as the host code needs it. */
public record MemberHost(String cluster, MemberSpec member, SshTarget target) {

  public static MemberHost of(ClusterSpec cluster, MemberSpec member) {
    return new MemberHost(cluster.name(), member, SshTarget.of(cluster, member));
  }

  /** "cluster 'c' member 'm' on host:port", for messages. */
  public String describe() {
    return "cluster '" + cluster + "' member '" + member.name() + "' on " + target.address();
  }

  /**
   * The result of a command run for this member; a failed one as an {@link SshCommandException}
   * naming what it was, the member and the exit code.
   */
  public ExecResult requireOk(ExecResult result, String what) {
    if (result.ok()) return result;
    throw new SshCommandException(
        "cannot "
            + what
            + " for "
            + describe()
            + " (exit code "
            + result.exitCode()
            + ")"
            + (result.stderr().isBlank() ? "" : ": " + result.stderr().strip()));
  }
}
