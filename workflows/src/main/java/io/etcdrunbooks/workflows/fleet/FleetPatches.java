package io.etcdrunbooks.workflows.fleet;

import io.etcdrunbooks.workflows.common.Patch;

/** The changes to FleetUpgrade since it shipped, oldest first. */
final class FleetPatches {

  private FleetPatches() {}

  static final Patch WAVE_GATE =
      Patch.replayed(
          "fleet-wave-gate",
          "2026-11-26",
          "Each wave bakes (bakeMinutes) and its upgraded clusters' kube-apiservers are asked for"
              + " readiness before the next wave.",
          "histories/fleet-in-memory-three-waves.json");

  static final Patch NODE_GATE =
      Patch.replayed(
          "fleet-node-gate",
          "2026-11-26",
          "Each upgraded cluster's nodes are watched through its Kubernetes API during the bake;"
              + " more NotReady than kubernetes.maxNotReadyNodes fails it.",
          "histories/fleet-in-memory-three-waves-baked.json");
}
