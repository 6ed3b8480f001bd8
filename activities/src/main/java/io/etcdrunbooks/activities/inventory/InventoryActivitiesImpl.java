package io.etcdrunbooks.activities.inventory;

import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.FencedMemberSpec;
import io.etcdrunbooks.inventory.FileInventoryStore;
import io.etcdrunbooks.inventory.FleetSelector;
import io.etcdrunbooks.inventory.Inventory;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.InventoryStore;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link InventoryActivities} on the worker's inventory. A change is a function of the cluster's
 * current entry, validated as a whole inventory and written by compare-and-swap through an {@link
 * InventoryStore}, so that workers changing the inventory at the same time lose nothing.
 */
public final class InventoryActivitiesImpl implements InventoryActivities {

  private static final Logger log = LoggerFactory.getLogger(InventoryActivitiesImpl.class);

  private final InventorySource source;
  private final ClusterChanges changes;

  /**
   * Changes recorded where {@code source} keeps the runbooks' records ({@link
   * InventorySource#records()}), else in the inventory file itself ({@link FileInventoryStore}).
   */
  public InventoryActivitiesImpl(InventorySource source) {
    this(
        source,
        source
            .records()
            .<ClusterChanges>map(records -> new RecordChanges(source, records))
            .orElseGet(() -> new InventoryChanges(new FileInventoryStore(source.file()))));
  }

  /**
   * @param source the inventory runbooks read
   * @param store where they record the changes they make
   */
  public InventoryActivitiesImpl(InventorySource source, InventoryStore store) {
    this(source, new InventoryChanges(store));
  }

  private InventoryActivitiesImpl(InventorySource source, ClusterChanges changes) {
    this.source = source;
    this.changes = changes;
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
    try {
      changes.checkWritable();
    } catch (IllegalStateException e) {
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), "InventoryReadOnly");
    }
  }

  @Override
  public boolean recordReplacement(RecordReplacementRequest request) {
    MemberPlacement p = request.member();
    MemberSpec added = spec(p);
    boolean written =
        changes.change(
            request.cluster(),
            cluster -> {
              boolean hasNew = cluster.findMember(p.name()).map(added::equals).orElse(false);
              boolean hasOld = cluster.findMember(request.replacedMember()).isPresent();
              if (hasNew && !hasOld) return cluster;
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
              return cluster.withMembers(members);
            });
    if (written)
      log.info(
          "inventory {}: cluster '{}' member '{}' replaced by '{}' ({})",
          changes.location(request.cluster()),
          request.cluster(),
          request.replacedMember(),
          p.name(),
          p.peerUrl());
    return written;
  }

  @Override
  public boolean recordAddition(RecordAdditionRequest request) {
    MemberPlacement p = request.member();
    boolean written =
        changes.change(
            request.cluster(),
            cluster -> {
              Optional<MemberSpec> present = cluster.findMember(p.name());
              if (present.isPresent()) {
                if (present.get().peerUrl().equals(p.peerUrl())) return cluster;
                throw ApplicationFailure.newNonRetryableFailure(
                    "the inventory already has a member '%s' with peer URL %s, not %s: it was not changed"
                        .formatted(p.name(), present.get().peerUrl(), p.peerUrl()),
                    "InventoryConflict");
              }
              List<MemberSpec> members = new ArrayList<>(cluster.members());
              members.add(spec(p));
              return cluster.withMembers(members);
            });
    if (written)
      log.info(
          "inventory {}: cluster '{}' member '{}' added ({})",
          changes.location(request.cluster()),
          request.cluster(),
          p.name(),
          p.peerUrl());
    return written;
  }

  @Override
  public boolean recordRemoval(RecordRemovalRequest request) {
    boolean written =
        changes.change(
            request.cluster(),
            cluster ->
                cluster.withMembers(
                    cluster.members().stream()
                        .filter(m -> !m.name().equals(request.member()))
                        .toList()));
    if (written)
      log.info(
          "inventory {}: cluster '{}' member '{}' removed",
          changes.location(request.cluster()),
          request.cluster(),
          request.member());
    return written;
  }

  @Override
  public boolean recordFenced(RecordFencedRequest request) {
    boolean written =
        changes.change(
            request.cluster(),
            cluster -> {
              List<FencedMemberSpec> tombstones = new ArrayList<>(cluster.fenced());
              for (FencedMember f : request.members()) {
                FencedMemberSpec tombstone = tombstone(f);
                if (!tombstones.contains(tombstone)) tombstones.add(tombstone);
              }
              return cluster.withFenced(tombstones);
            });
    if (written)
      log.info(
          "inventory {}: cluster '{}' tombstones {}",
          changes.location(request.cluster()),
          request.cluster(),
          request.members().stream().map(f -> f.member().name()).toList());
    return written;
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
  public boolean recordTls(RecordTlsRequest request) {
    AtomicReference<TlsSpec> recorded = new AtomicReference<>();
    boolean written =
        changes.change(
            request.cluster(),
            cluster -> {
              ClusterSpec changed = withTls(cluster, request);
              recorded.set(changed.tls());
              return changed;
            });
    if (written) {
      TlsSpec tls = recorded.get();
      log.info(
          "inventory {}: cluster '{}' client URLs {}, peer URLs {}, client TLS {}",
          changes.location(request.cluster()),
          request.cluster(),
          request.clientUrls(),
          request.peerUrls(),
          tls == null ? "none" : "CA " + tls.caFile() + ", certificate " + tls.certFile());
    }
    return written;
  }

  private static ClusterSpec withTls(ClusterSpec cluster, RecordTlsRequest request) {
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
    return cluster.withMembers(members).withTls(tls);
  }

  private static String keep(String wanted, String current) {
    return wanted != null ? wanted : current;
  }

  private ClusterSpec cluster(String name) {
    try {
      return source.get().cluster(name);
    } catch (UnknownClusterException e) {
      throw FailureType.UnknownCluster.nonRetryable(e.getMessage());
    }
  }
}
