package io.etcdrunbooks.workflows.activities;

import io.etcdrunbooks.workflows.model.ClusterRef;
import io.etcdrunbooks.workflows.model.VersionOffer;
import io.temporal.activity.ActivityInterface;
import java.util.List;

/** What the configured binary source offers. */
@ActivityInterface
public interface ReleaseActivities {

  /**
   * Versions the binary source can install for this cluster, for example [3.3.25, 3.4.23, 3.5.16,
   * 3.5.30].
   */
  List<String> availableVersions(ClusterRef cluster);

  /**
   * The versions the cluster can move to and where they come from: for static-pod members, the
   * binary source's versions whose image tag the configured image repository serves. Abstract, so
   * that a decorator must pass the real offer (image repository and tags) on rather than inherit
   * one made from {@link #availableVersions} alone.
   */
  VersionOffer offer(ClusterRef cluster);

  /**
   * Every flag the version's etcd binary lists in its {@code --help} ("--name", "--log-level",
   * ...): what a member started with other flags could not start on. Fails when the binary source
   * does not have the version.
   */
  List<String> flagsOf(String version);
}
