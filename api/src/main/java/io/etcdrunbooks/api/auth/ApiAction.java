package io.etcdrunbooks.api.auth;

import io.etcdrunbooks.workflows.RunbookCatalog;
import io.etcdrunbooks.workflows.RunbookDefinition;
import java.util.Optional;

/**
 * Everything the API lets a caller do, with the role it needs and how the cluster it touches is
 * found. Each {@code /api/v1} route names its action with {@link Access}; the Slack command asks
 * the same action's role, so the two never disagree about who may do what.
 *
 * <p>The role that starts a runbook is its definition's ({@link RunbookCatalog}). Reads are for
 * viewers; starting upgrades, backups, maintenance and member replacements, and approving, pausing,
 * resuming and cancelling runbooks, for operators; restore and rollback (which can lose data), the
 * online downgrade, the v2 -> v3 migration (which stops the whole control plane) and TLS
 * reconfiguration (which replaces what every client must trust) for admins. Encoding and decoding
 * Temporal payloads (the codec endpoint the Temporal Web UI calls to show a history) is reading,
 * but the payloads may be of any cluster's runbooks, so only tokens allowed on every cluster may do
 * it.
 */
public enum ApiAction {
  LIST_CLUSTERS(Role.VIEWER, Scope.CALLERS_CLUSTERS),
  CLUSTER_STATUS(Role.VIEWER, Scope.CLUSTER),
  LIST_RUNBOOKS(Role.VIEWER, Scope.CLUSTER),
  UPGRADE(RunbookCatalog.UPGRADE),
  REPLACE_MEMBER(RunbookCatalog.REPLACE_MEMBER),
  BACKUP(RunbookCatalog.BACKUP),
  BACKUP_SCHEDULE(RunbookCatalog.BACKUP_SCHEDULE),
  RESTORE_DRILL(RunbookCatalog.RESTORE_DRILL),
  ROLLBACK(RunbookCatalog.ROLLBACK),
  DOWNGRADE(RunbookCatalog.DOWNGRADE),
  RESTORE(RunbookCatalog.RESTORE),
  MIGRATE_V2_TO_V3(RunbookCatalog.MIGRATE_V2_TO_V3),
  SCALE(RunbookCatalog.SCALE),
  RECOVER_QUORUM(RunbookCatalog.RECOVER_QUORUM),
  MAINTENANCE(RunbookCatalog.MAINTENANCE),
  MAINTENANCE_SCHEDULE(RunbookCatalog.MAINTENANCE_SCHEDULE),
  RECONFIGURE_TLS(RunbookCatalog.RECONFIGURE_TLS),
  /** Many clusters at once: an admin's, with a token allowed on every cluster. */
  FLEET_UPGRADE(RunbookCatalog.FLEET_UPGRADE),
  READ_FLEET(Role.VIEWER, Scope.EVERY_CLUSTER),
  READ_RUNBOOK(Role.VIEWER, Scope.RUNBOOK),
  APPROVE(Role.OPERATOR, Scope.RUNBOOK),
  PAUSE(Role.OPERATOR, Scope.RUNBOOK),
  RESUME(Role.OPERATOR, Scope.RUNBOOK),
  CANCEL(Role.OPERATOR, Scope.RUNBOOK),
  CODEC(Role.VIEWER, Scope.EVERY_CLUSTER);

  /** Path variables the scopes read; routes name them so. */
  public static final String CLUSTER_VARIABLE = "cluster";

  public static final String RUNBOOK_VARIABLE = "workflowId";

  /** How the cluster an action touches is found. */
  public enum Scope {
    /** The route's {@value #CLUSTER_VARIABLE} path variable names it. */
    CLUSTER,
    /**
     * The runbook in the route's {@value #RUNBOOK_VARIABLE} path variable runs on it (its input
     * says which).
     */
    RUNBOOK,
    /** It can reach any cluster's data: a token limited to some clusters may not. */
    EVERY_CLUSTER,
    /** It names no cluster; the controller shows only the clusters the caller may act on. */
    CALLERS_CLUSTERS
  }

  private final Role role;
  private final Scope scope;
  private final RunbookDefinition<?> starts;

  ApiAction(Role role, Scope scope) {
    this.role = role;
    this.scope = scope;
    this.starts = null;
  }

  /** Starting the runbook: the role and target its definition names. */
  ApiAction(RunbookDefinition<?> runbook) {
    this.role = Role.valueOf(runbook.starter().name());
    this.scope =
        runbook.target() == RunbookDefinition.Target.FLEET ? Scope.EVERY_CLUSTER : Scope.CLUSTER;
    this.starts = runbook;
  }

  /** The action that starts {@code runbook}. */
  public static ApiAction starting(RunbookDefinition<?> runbook) {
    for (ApiAction action : values()) {
      if (action.starts == runbook) return action;
    }
    throw new IllegalArgumentException("no action starts runbook " + runbook.type());
  }

  /** The runbook this action starts, if it starts one. */
  public Optional<RunbookDefinition<?>> starts() {
    return Optional.ofNullable(starts);
  }

  public Role role() {
    return role;
  }

  public Scope scope() {
    return scope;
  }
}
