package io.etcdrunbooks.activities.ssh;

/** What a remote command printed and how it exited. */
public record ExecResult(int exitCode, String stdout, String stderr) {

  public boolean ok() {
    return exitCode == 0;
  }

  /**
   * This result when it exited 0, otherwise an {@link SshCommandException} saying what failed
   * where.
   */
  public ExecResult orThrow(SshTarget target, String what) {
    if (ok()) return this;
    throw new SshCommandException(
        what
            + " on "
            + target.address()
            + " failed with exit code "
            + exitCode
            + (stderr.isBlank() ? "" : ": " + stderr.strip()));
  }
}
