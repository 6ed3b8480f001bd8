package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.inventory.ServiceSpec;

/**
 * The one rule for work on files root owns (a static pod's manifests, a systemd unit's environment
 * file and data dir): it goes through {@code sudo -n /bin/sh -c} when the inventory's {@code
 * service.sudo} says so, else when the SSH user is not root.
 */
public final class RootShell {

  private RootShell() {}

  public static boolean viaSudo(ServiceSpec service, String user) {
    return viaSudo(service == null ? null : service.sudo(), user);
  }

  /**
   * @param sudo the inventory's {@code service.sudo}; null: when the SSH user is not root
   */
  public static boolean viaSudo(Boolean sudo, String user) {
    return sudo != null ? sudo : !"root".equals(user);
  }

  /** The script as root would run it on the host of the SSH user {@code user}. */
  public static String asRoot(ServiceSpec service, String user, String script) {
    return viaSudo(service, user) ? "sudo -n /bin/sh -c " + quote(script) : script;
  }
}
