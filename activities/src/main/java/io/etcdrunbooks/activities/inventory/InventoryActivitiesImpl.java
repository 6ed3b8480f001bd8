package io.etcdrunbooks.activities.inventory;

import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.FencedMemberSpec;
import io.etcdrunbooks.inventory.FleetSelector;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.InventoryLoader;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.TlsSpec;
import io.etcdrunbooks.inventory.UnknownClusterException;
import io.etcdrunbooks.workflows.activities.InventoryActivities;
import io.etcdrunbooks.workflows.common.FailureType;
import io.etcdrunbooks.workflows.model.ClientTls;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.FencedMember;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link InventoryActivities} on the worker's inventory file. A change is validated as a whole
 * inventory before it is written (temp file, then rename); the file as it was is kept beside it as
 * {@code <file>.previous}.
 */
public final class InventoryActivitiesImpl implements InventoryActivities {

  private static final Logger log = LoggerFactory.getLogger(InventoryActivitiesImpl.class);

  private final InventorySource source;

  public InventoryActivitiesImpl(InventorySource source) {
    this.source = source;
  }

  @Override
  public List<MemberPlacement> members(ClusterRef cluster) {
    return cluster(cluster.cluster()).members().stream().map(MemberSpec::placement).toList();
  }

  @Override
  public List<FleetCluster> selectClusters(SelectClustersRequest request) {
    Inventory inventory = source.get();
    String selector = request.selector() == null ? "" : request.selector().strip();
    if (selector.isEmpty()) {
      selector = inventory.fleets().get(request.fleet());
      if (selector == null) {
        throw ApplicationFailure.newNonRetryableFailure(
            "no fleet '%s' in the inventory (fleets: %s) and no selector given; name a fleet of the inventory's fleets section or give a selector such as env=prod,size=small"
                .formatted(request.fleet(), new java.util.TreeSet<>(inventory.fleets().keySet())),
            FailureType.FleetRefused.name());
      }
    }
    List<ClusterSpec> selected;
    try {
      selected = FleetSelector.parse(selector).select(inventory);
    } catch (IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          e.getMessage(), FailureType.FleetRefused.name());
    }
    if (selected.isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "selector '%s' matches none of the inventory's %d clusters; check the clusters' labels"
              .formatted(selector, inventory.clusters().size()),
          FailureType.FleetRefused.name());
    }
    return selected.stream()
        .map(c -> new FleetCluster(c.name(), c.labels(), c.members().size()))
        .toList();
  }

  @Override
  public void checkWritable(ClusterRef cluster) {
    cluster(cluster.cluster());
    Path file = source.file().toAbsolutePath();
    if (!Files.isWritable(file) || !Files.isWritable(file.getParent())) {
      throw ApplicationFailure.newNonRetryableFailure(
          "the inventory "
              + file
              + " (or its directory) is not writable by the"
              + " worker, and the new membership must be recorded there. Make it writable (for example a volume rather than a"
              + " read-only ConfigMap mount), then run again",
          "InventoryReadOnly");
    }
  }

  @Override
  public synchronized boolean recordReplacement(RecordReplacementRequest request) {
    Inventory inventory = source.get();
    ClusterSpec cluster = cluster(request.cluster());
    MemberPlacement p = request.member();
    MemberSpec added = spec(p);
    boolean hasNew = cluster.findMember(p.name()).map(added::equals).orElse(false);
    boolean hasOld = cluster.findMember(request.replacedMember()).isPresent();
    if (hasNew && !hasOld) return false;
    List<MemberSpec> members = new ArrayList<>();
    boolean placed = false;
    for (MemberSpec m : cluster.members()) {
      if (m.name().equals(request.replacedMember()) || m.name().equals(p.name())) {
        if (!placed) members.add(added);
        placed = true;
      } else {
        members.add(m);
      }
    }
    if (!placed) members.add(added);
    Map<String, ClusterSpec> clusters = new LinkedHashMap<>(inventory.clusters());
    clusters.put(cluster.name(), cluster.withMembers(members));
    write(inventory.withClusters(clusters), cluster.name());
    log.info(
        "inventory {}: cluster '{}' member '{}' replaced by '{}' ({})",
        source.file(),
        cluster.name(),
        request.replacedMember(),
        p.name(),
        p.peerUrl());
    return true;
  }

  @Override
  public synchronized boolean recordAddition(RecordAdditionRequest request) {
    ClusterSpec cluster = cluster(request.cluster());
    MemberPlacement p = request.member();
    Optional<MemberSpec> present = cluster.findMember(p.name());
    if (present.isPresent()) {
      if (present.get().peerUrl().equals(p.peerUrl())) return false;
      throw ApplicationFailure.newNonRetryableFailure(
          "the inventory already has a member '%s' with peer URL %s, not %s: it was not changed"
              .formatted(p.name(), present.get().peerUrl(), p.peerUrl()),
          "InventoryConflict");
    }
    List<MemberSpec> members = new ArrayList<>(cluster.members());
    members.add(spec(p));
    replaceMembers(cluster, members);
    log.info(
        "inventory {}: cluster '{}' member '{}' added ({})",
        source.file(),
        cluster.name(),
        p.name(),
        p.peerUrl());
    return true;
  }

  @Override
  public synchronized boolean recordRemoval(RecordRemovalRequest request) {
    ClusterSpec cluster = cluster(request.cluster());
    if (cluster.findMember(request.member()).isEmpty()) return false;
    List<MemberSpec> members =
        cluster.members().stream().filter(m -> !m.name().equals(request.member())).toList();
    replaceMembers(cluster, members);
    log.info(
        "inventory {}: cluster '{}' member '{}' removed",
        source.file(),
        cluster.name(),
        request.member());
    return true;
  }

  @Override
  public synchronized boolean recordFenced(RecordFencedRequest request) {
    Inventory inventory = source.get();
    ClusterSpec cluster = cluster(request.cluster());
    List<FencedMemberSpec> tombstones = new ArrayList<>(cluster.fenced());
    for (FencedMember f : request.members()) {
      FencedMemberSpec tombstone = tombstone(f);
      if (!tombstones.contains(tombstone)) tombstones.add(tombstone);
    }
    if (tombstones.equals(cluster.fenced())) return false;
    Map<String, ClusterSpec> clusters = new LinkedHashMap<>(inventory.clusters());
    clusters.put(cluster.name(), cluster.withFenced(tombstones));
    write(inventory.withClusters(clusters), cluster.name());
    log.info(
        "inventory {}: cluster '{}' tombstones {}",
        source.file(),
        cluster.name(),
        request.members().stream().map(f -> f.member().name()).toList());
    return true;
  }

  private static FencedMemberSpec tombstone(FencedMember f) {
    MemberPlacement p = f.member();
    return new FencedMemberSpec(
        p.name(),
        f.memberId() == null ? "" : f.memberId(),
        p.host(),
        p.sshPort(),
        p.clientUrl(),
        p.peerUrl(),
        p.dataDir(),
        p.installDir(),
        p.serviceDir(),
        f.fencedBy(),
        f.onHost() ? FencedMemberSpec.ON_HOST : FencedMemberSpec.ATTESTED_DESTROYED);
  }

  private void replaceMembers(ClusterSpec cluster, List<MemberSpec> members) {
    Inventory inventory = source.get();
    Map<String, ClusterSpec> clusters = new LinkedHashMap<>(inventory.clusters());
    clusters.put(cluster.name(), cluster.withMembers(members));
    write(inventory.withClusters(clusters), cluster.name());
  }

  private static MemberSpec spec(MemberPlacement p) {
    return new MemberSpec(
        p.name(),
        p.host(),
        p.sshPort(),
        p.clientUrl(),
        p.peerUrl(),
        p.dataDir(),
        p.installDir(),
        p.serviceDir());
  }

  @Override
  public ClientTls clientTls(ClusterRef ref) {
    TlsSpec tls = cluster(ref.cluster()).tls();
    return tls == null ? null : new ClientTls(tls.caFile(), tls.certFile(), tls.keyFile());
  }

  @Override
  public synchronized boolean recordTls(RecordTlsRequest request) {
    Inventory inventory = source.get();
    ClusterSpec cluster = cluster(request.cluster());
    List<MemberSpec> members =
        cluster.members().stream()
            .map(
                m ->
                    new MemberSpec(
                        m.name(),
                        m.host(),
                        m.sshPort(),
                        request.clientUrls().getOrDefault(m.name(), m.clientUrl()),
                        request.peerUrls().getOrDefault(m.name(), m.peerUrl()),
                        m.dataDir(),
                        m.installDir(),
                        m.serviceDir()))
            .toList();
    TlsSpec tls = cluster.tls();
    if (request.setTls()) {
      ClientTls wanted = request.tls();
      Integer window = tls == null ? null : tls.expiryWarningDays();
      TlsSpec current = tls;
      tls =
          wanted == null
              ? null
              : new TlsSpec(
                  keep(wanted.caFile(), current == null ? null : current.caFile()),
                  keep(wanted.certFile(), current == null ? null : current.certFile()),
                  keep(wanted.keyFile(), current == null ? null : current.keyFile()),
                  window);
    }
    ClusterSpec changed = cluster.withMembers(members).withTls(tls);
    if (changed.equals(cluster)) return false;
    Map<String, ClusterSpec> clusters = new LinkedHashMap<>(inventory.clusters());
    clusters.put(cluster.name(), changed);
    write(inventory.withClusters(clusters), cluster.name());
    log.info(
        "inventory {}: cluster '{}' client URLs {}, peer URLs {}, client TLS {}",
        source.file(),
        cluster.name(),
        request.clientUrls(),
        request.peerUrls(),
        tls == null ? "none" : "CA " + tls.caFile() + ", certificate " + tls.certFile());
    return true;
  }

  private static String keep(String wanted, String current) {
    return wanted != null ? wanted : current;
  }

  /** Writes the inventory once the changed cluster's entry is shown to be valid in it. */
  private void write(Inventory changed, String cluster) {
    Path file = source.file();
    Path candidate = file.resolveSibling("." + file.getFileName() + ".candidate");
    InventoryLoader.write(changed, candidate);
    try {
      InventoryLoader.load(candidate).cluster(cluster); // the validation an operator's edit gets
      Files.copy(
          file,
          file.resolveSibling(file.getFileName() + ".previous"),
          StandardCopyOption.REPLACE_EXISTING,
          StandardCopyOption.COPY_ATTRIBUTES);
      Files.move(
          candidate, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot write the inventory " + file + ": " + e.getMessage(), e);
    } catch (IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          "the changed inventory would be invalid, so "
              + file
              + " was left as it"
              + " was: "
              + e.getMessage(),
          "InventoryInvalid");
    } finally {
      try {
        Files.deleteIfExists(candidate);
      } catch (IOException ignored) {
        // a leftover hidden candidate is harmless and replaced next time
      }
    }
  }

  private ClusterSpec cluster(String name) {
    try {
      return source.get().cluster(name);
    } catch (UnknownClusterException e) {
      throw FailureType.UnknownCluster.nonRetryable(e.getMessage());
    }
  }
}
