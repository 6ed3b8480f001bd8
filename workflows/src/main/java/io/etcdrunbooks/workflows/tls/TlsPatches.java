package io.etcdrunbooks.workflows.tls;

import io.etcdrunbooks.workflows.common.Patch;

/** The changes to ReconfigureTls since it shipped, oldest first. */
final class TlsPatches {

  private TlsPatches() {}

  static final Patch UNMANAGED_CLIENTS_HOLD =
      Patch.replayed(
          "tls-unmanaged-clients-hold",
          "2026-11-26",
          "The change holds while clients the inventory does not manage are connected"
              + " (UnmanagedClientsHold).",
          "histories/enable-tls-3.4.23.json",
          "histories/enable-tls-3.5.30.json",
          "histories/rotate-ca-3.5.30-kubeadm-pki.json",
          "histories/rotate-ca-3.5.30.json");

  /**
   * kubeadm's peer, healthcheck client and apiserver-etcd-client certificates expire with the
   * server ones; with certificatesDir they are still refused after {@link #RENEW_PRESENTED}.
   */
  static final Patch REFUSE_UNROTATED =
      Patch.replayed(
          "tls-refuse-unrotated-certificates",
          "2026-11-26",
          "rotate-certificates refuses, listing each file and its expiry, while members or"
              + " kube-apiservers present certificates it does not replace.",
          "histories/rotate-certificates-3.5.30-static-pod.json");

  static final Patch RENEW_PRESENTED =
      Patch.replayed(
          "tls-renew-presented-certificates",
          "2026-11-26",
          "Certificates issued from the CA key renew the other presented certificates too, and"
              + " rotate-ca issues members' own peer certificates from the new CA.",
          "histories/rotate-ca-3.5.30.json");
}
