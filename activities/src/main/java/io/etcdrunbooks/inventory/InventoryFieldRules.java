package io.etcdrunbooks.inventory;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * What every path and name of the inventory must look like before a command line is made of it:
 * paths absolute (a relative one would be resolved against whatever directory a remote shell or the
 * worker happens to start in), no control characters anywhere (a newline in a path or name splits a
 * command or forges a log line), and a systemd unit a plain unit name. Each problem names the
 * cluster, the member or host, and the field.
 */
final class InventoryFieldRules {

  /**
   * systemd unit names: letters, digits and {@code :_.@-}; no whitespace, quotes or other shell
   * syntax.
   */
  private static final Pattern UNIT = Pattern.compile("[A-Za-z0-9][A-Za-z0-9:_.@-]*");

  private final List<String> problems = new ArrayList<>();

  private InventoryFieldRules() {}

  static List<String> releaseProblems(ReleaseSource releases) {
    InventoryFieldRules rules = new InventoryFieldRules();
    if (releases != null) {
      rules.absolutePath("releases", "localDir", releases.localDir());
      rules.absolutePath("releases", "downloadDir", releases.downloadDir());
      rules.noControl("releases", "urlTemplate", releases.urlTemplate());
    }
    return rules.problems;
  }

  static List<String> clusterProblems(String name, ClusterSpec cluster) {
    InventoryFieldRules rules = new InventoryFieldRules();
    rules.cluster(name, cluster);
    return rules.problems;
  }

  private void cluster(String name, ClusterSpec c) {
    String where = "cluster '" + printable(name) + "'";
    noControl("inventory", "cluster name", name);
    absolutePath(where, "backupDir", c.backupDir());
    if (c.ssh() != null) {
      noControl(where, "ssh.user", c.ssh().user());
      absolutePath(where, "ssh.privateKeyFile", c.ssh().privateKeyFile());
      absolutePath(where, "ssh.knownHostsFile", c.ssh().knownHostsFile());
    }
    if (c.tls() != null) {
      absolutePath(where, "tls.caFile", c.tls().caFile());
      absolutePath(where, "tls.certFile", c.tls().certFile());
      absolutePath(where, "tls.keyFile", c.tls().keyFile());
      Integer days = c.tls().expiryWarningDays();
      if (days != null && (days < 0 || days > 3650)) {
        problems.add(where + ": tls.expiryWarningDays must be 0 to 3650 days, got " + days);
      }
    }
    if (c.auth() != null) {
      noControl(where, "auth.user", c.auth().user());
      absolutePath(where, "auth.passwordFile", c.auth().passwordFile());
    }
    if (c.backup() != null) {
      absolutePath(where, "backup.keyFile", c.backup().keyFile());
      if (c.backup().copyTo() != null) {
        noControl(where, "backup.copyTo.host", c.backup().copyTo().host());
        noControl(where, "backup.copyTo.dir", c.backup().copyTo().dir());
      }
      if (c.backup().objectStore() != null) {
        noControl(where, "backup.objectStore.prefix", c.backup().objectStore().prefix());
        absolutePath(
            where,
            "backup.objectStore.credentialsFile",
            c.backup().objectStore().credentialsFile());
      }
    }
    if (c.service() != null) service(where, c.service());
    for (MemberSpec m : c.members()) {
      String mw = where + " member '" + printable(m.name()) + "'";
      noControl(mw, "name", m.name());
      noControl(mw, "host", m.host());
      absolutePath(mw, "dataDir", m.dataDir());
      absolutePath(mw, "installDir", m.installDir());
      absolutePath(mw, "serviceDir", m.serviceDir());
    }
    for (ControlPlaneHost h : c.controlPlane()) {
      String hw = where + " control-plane host '" + printable(h.name()) + "'";
      noControl(hw, "name", h.name());
      noControl(hw, "host", h.host());
      absolutePath(hw, "manifestPath", h.manifestPath());
      noControl(hw, "healthUrl", h.healthUrl());
      absolutePath(hw, "encryptionConfigPath", h.encryptionConfigPath());
    }
  }

  /**
   * manifestPath and stashDir are checked for being absolute with the rest of the static-pod
   * settings.
   */
  private void service(String where, ServiceSpec s) {
    noControl(where, "service.kind", s.kind());
    noControl(where, "service.manifestPath", s.manifestPath());
    noControl(where, "service.stashDir", s.stashDir());
    noControl(where, "service.image", s.image());
    noControl(where, "service.imageRepository", s.imageRepository());
    noControl(where, "service.logCommand", s.logCommand());
    if (!blank(s.unit()) && !hasControl(s.unit()) && !UNIT.matcher(s.unit()).matches()) {
      problems.add(
          where
              + ": service.unit must be a systemd unit name (letters, digits and :_.@-, no spaces or shell"
              + " syntax), got '"
              + s.unit()
              + "'");
    }
    noControl(where, "service.unit", s.unit());
  }

  private void absolutePath(String where, String field, String path) {
    if (blank(path)) return;
    if (hasControl(path)) {
      problems.add(
          where
              + ": "
              + field
              + " must not contain control characters, got '"
              + printable(path)
              + "'");
    } else if (!path.startsWith("/")) {
      problems.add(where + ": " + field + " must be an absolute path, got '" + path + "'");
    }
  }

  private void noControl(String where, String field, String value) {
    if (value != null && hasControl(value)) {
      problems.add(
          where
              + ": "
              + field
              + " must not contain control characters, got '"
              + printable(value)
              + "'");
    }
  }

  static boolean hasControl(String s) {
    return s.codePoints().anyMatch(InventoryFieldRules::isControl);
  }

  private static boolean isControl(int c) {
    return Character.isISOControl(c) || c == '\u2028' || c == '\u2029';
  }

  /**
   * The value with control characters written as escapes, so that a message about it cannot break a
   * log line.
   */
  static String printable(String s) {
    if (s == null) return "null";
    StringBuilder out = new StringBuilder();
    s.codePoints()
        .forEach(
            c -> {
              switch (c) {
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                  if (isControl(c)) out.append(String.format("\\u%04x", c));
                  else out.appendCodePoint(c);
                }
              }
            });
    return out.toString();
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
