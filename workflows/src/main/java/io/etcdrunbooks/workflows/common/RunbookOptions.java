package io.etcdrunbooks.workflows.common;

/**
 * What every runbook input takes, named instead of positional booleans. Not serialized itself: the
 * request records keep their own fields (histories already hold them), and build from and expose
 * these.
 *
 * @param memberTimeoutSeconds how long a member may take to be ready; 0: the default
 * @param apiServerTimeoutSeconds how long a kube-apiserver may take to be healthy; 0: the default
 *     (values are checked by each runbook's input checks, which name the field, not here)
 */
public record RunbookOptions(
    boolean dryRun,
    boolean requireApproval,
    int memberTimeoutSeconds,
    int apiServerTimeoutSeconds) {

  /** A real run, without approval, with the default timeouts. */
  public static RunbookOptions defaults() {
    return new RunbookOptions(false, false, 0, 0);
  }

  /** Plans and touches nothing. */
  public RunbookOptions asDryRun() {
    return withDryRun(true);
  }

  public RunbookOptions withDryRun(boolean on) {
    return new RunbookOptions(on, requireApproval, memberTimeoutSeconds, apiServerTimeoutSeconds);
  }

  /** Waits for an operator's approve before the first change. */
  public RunbookOptions withApproval() {
    return withApproval(true);
  }

  public RunbookOptions withApproval(boolean required) {
    return new RunbookOptions(dryRun, required, memberTimeoutSeconds, apiServerTimeoutSeconds);
  }

  public RunbookOptions withMemberTimeoutSeconds(int seconds) {
    return new RunbookOptions(dryRun, requireApproval, seconds, apiServerTimeoutSeconds);
  }

  public RunbookOptions withApiServerTimeoutSeconds(int seconds) {
    return new RunbookOptions(dryRun, requireApproval, memberTimeoutSeconds, seconds);
  }
}
