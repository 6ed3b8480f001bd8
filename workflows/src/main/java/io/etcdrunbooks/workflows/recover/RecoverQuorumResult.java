package io.etcdrunbooks.workflows.recover;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the RecoverQuorum runbook did and what the cluster lost.
 *
 * @param outcome {@link #RECOVERED} (rebuilt from a survivor), {@link #RESTORED} (no survivor: the
 *     newest verified backup restored) or {@link #DRY_RUN}
 * @param survivor the member the cluster was rebuilt from ("" when restored)
 * @param survivorRevision the survivor's revision: writes after it that reached only the lost
 *     members are lost
 * @param revisionBump how far the revision was raised above the survivor's (0: it was not), so that
 *     no revision a watcher saw comes again; the notes say which watchers must relist
 * @param backupId the newest verified backup ("" when there is none)
 * @param backupRevision its revision (0 when there is none)
 * @param rebuilt each lost member and the member that took its place
 * @param survivorDataDirCopy where the survivor's data dir was copied before it was changed
 * @param members etcd's members at the end
 * @param apiServersRestarted the control-plane hosts whose kube-apiserver was brought back
 * @param notes what the operator should know (the loss, in words)
 */
public record RecoverQuorumResult(
    String cluster,
    String outcome,
    String survivor,
    long survivorRevision,
    long revisionBump,
    String backupId,
    long backupRevision,
    Map<String, String> rebuilt,
    String survivorDataDirCopy,
    List<String> members,
    List<String> apiServersRestarted,
    List<String> notes) {

  public static final String RECOVERED = "RECOVERED";
  public static final String RESTORED = "RESTORED";
  public static final String DRY_RUN = "DRY_RUN";

  public RecoverQuorumResult {
    rebuilt = Collections.unmodifiableMap(new LinkedHashMap<>(rebuilt)); // in the order rebuilt
    members = List.copyOf(members);
    apiServersRestarted = List.copyOf(apiServersRestarted);
    notes = List.copyOf(notes);
  }
}
