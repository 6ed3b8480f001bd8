package io.etcdrunbooks.workflows.scale;

import java.util.List;

/**
 * What the ScaleCluster runbook did.
 *
 * @param outcome {@link #SCALED}, {@link #UNCHANGED} (already that size) or {@link #DRY_RUN}
 * @param fromSize members before
 * @param toSize members after (as before for a dry run)
 * @param added the members added, in order
 * @param removed the members removed, in order
 * @param members etcd's members at the end
 * @param apiServersUpdated the control-plane hosts whose --etcd-servers changed
 * @param notes what else the operator should know
 */
public record ScaleClusterResult(
    String cluster,
    String outcome,
    int fromSize,
    int toSize,
    List<String> added,
    List<String> removed,
    List<String> members,
    List<String> apiServersUpdated,
    List<String> notes) {

  public static final String SCALED = "SCALED";
  public static final String UNCHANGED = "UNCHANGED";
  public static final String DRY_RUN = "DRY_RUN";

  public ScaleClusterResult {
    added = List.copyOf(added);
    removed = List.copyOf(removed);
    members = List.copyOf(members);
    apiServersUpdated = List.copyOf(apiServersUpdated);
    notes = List.copyOf(notes);
  }
}
