package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.ssh.ExecResult;
import io.etcdrunbooks.activities.ssh.SshCommandException;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ServiceSpec;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;

/**
 * A member's kubelet static-pod manifest on its host: in place (kubelet runs it) or stashed
 * (kubelet stopped it), and how to read and replace it over SSH. Commands go through {@code sudo
 * -n} when the service spec asks for it.
 */
final class StaticPodManifest {

  /** Where the manifest is. */
  enum Location {
    IN_PLACE,
    STASHED,
    MISSING
  }

  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);

  private final SshConnector ssh;
  private final ServiceSpec spec;

  StaticPodManifest(SshConnector ssh, ServiceSpec spec) {
    this.ssh = ssh;
    this.spec = spec;
  }

  String inPlacePath(MemberHost host) {
    return forMember(spec.effectiveManifestPath(), host);
  }

  String stashDir(MemberHost host) {
    return forMember(spec.effectiveStashDir(), host).replaceAll("/+$", "");
  }

  String stashedPath(MemberHost host) {
    String manifest = inPlacePath(host);
    return stashDir(host) + "/" + manifest.substring(manifest.lastIndexOf('/') + 1);
  }

  /**
   * The copy of the manifest as it was before the last install; kept in the stash dir, which
   * kubelet does not read.
   */
  String backupPath(MemberHost host) {
    return stashedPath(host) + ".previous";
  }

  /**
   * Shell test printing {@code in-place}, {@code stashed} or {@code missing}, without a newline.
   */
  String locateScript(MemberHost host) {
    return "if [ -f "
        + quote(inPlacePath(host))
        + " ]; then printf in-place; elif [ -f "
        + quote(stashedPath(host))
        + " ]; then printf stashed; else printf missing; fi";
  }

  static Location parseLocation(String word) {
    return switch (word) {
      case "in-place" -> Location.IN_PLACE;
      case "stashed" -> Location.STASHED;
      default -> Location.MISSING;
    };
  }

  Location locate(MemberHost host) {
    return parseLocation(run(host, locateScript(host), "find the etcd manifest").stdout().strip());
  }

  String path(MemberHost host, Location location) {
    return location == Location.STASHED ? stashedPath(host) : inPlacePath(host);
  }

  /**
   * The manifest's text; refuses one that is not UTF-8, since it could not be written back byte for
   * byte.
   */
  String read(MemberHost host, String path) {
    String text = run(host, "cat " + quote(path), "read " + path).stdout();
    if (text.indexOf('\uFFFD') >= 0) {
      throw new SshCommandException(
          path + " on " + host.describe() + " is not UTF-8 text; edit its image by hand");
    }
    return text;
  }

  /**
   * Replaces the file at path with content atomically (a temp file beside it, then mv), after
   * copying the current file to {@link #backupPath}. Refuses when the file changed since expected
   * was read.
   */
  void replace(MemberHost host, String path, String expected, String content) {
    String dir = path.substring(0, path.lastIndexOf('/'));
    // a dot name: kubelet ignores hidden files in its manifests directory
    String tmp = dir + "/." + path.substring(path.lastIndexOf('/') + 1) + ".etcd-runbooks.tmp";
    String script =
        "set -e\n"
            + "echo "
            + quote(sha256(expected) + "  " + path)
            + " | sha256sum -c --status"
            + " || { echo "
            + quote(path + " changed while it was being edited; run again")
            + " >&2; exit 5; }\n"
            + "mkdir -p "
            + quote(stashDir(host))
            + "\n"
            + "cp -p "
            + quote(path)
            + " "
            + quote(backupPath(host))
            + "\n"
            + "cp -p "
            + quote(path)
            + " "
            + quote(tmp)
            + "\n"
            + "printf '%s' "
            + quote(Base64.getEncoder().encodeToString(content.getBytes(StandardCharsets.UTF_8)))
            + " | base64 -d > "
            + quote(tmp)
            + "\n"
            + "mv -f "
            + quote(tmp)
            + " "
            + quote(path)
            + "\n";
    run(host, script, "rewrite " + path);
  }

  /**
   * Writes a new file at path atomically (a hidden temp file beside it, then mv), creating its
   * directory.
   */
  void write(MemberHost host, String path, String content) {
    String dir = path.substring(0, path.lastIndexOf('/'));
    String tmp = dir + "/." + path.substring(path.lastIndexOf('/') + 1) + ".etcd-runbooks.tmp";
    run(
        host,
        "set -e\nmkdir -p "
            + quote(dir)
            + "\nprintf '%s' "
            + quote(Base64.getEncoder().encodeToString(content.getBytes(StandardCharsets.UTF_8)))
            + " | base64 -d > "
            + quote(tmp)
            + "\nchmod 600 "
            + quote(tmp)
            + "\nmv -f "
            + quote(tmp)
            + " "
            + quote(path)
            + "\n",
        "write " + path);
  }

  ExecResult run(MemberHost host, String script, String what) {
    return check(host, exec(host, script, COMMAND_TIMEOUT), what);
  }

  ExecResult exec(MemberHost host, String script, Duration timeout) {
    return ssh.exec(host.target(), withSudo(host, script), timeout);
  }

  private String withSudo(MemberHost host, String script) {
    return RootShell.asRoot(spec, host.target().user(), script);
  }

  /** Whether commands on the host go through {@code sudo -n} ({@link RootShell}). */
  boolean usesSudo(MemberHost host) {
    return RootShell.viaSudo(spec, host.target().user());
  }

  /** kubelet's manifests directory on the host: where the manifest lies while the member runs. */
  String manifestsDir(MemberHost host) {
    String manifest = inPlacePath(host);
    return manifest.substring(0, manifest.lastIndexOf('/'));
  }

  private static ExecResult check(MemberHost host, ExecResult result, String what) {
    return host.requireOk(result, what);
  }

  /** A path template with {@code {member}} filled in; the caller quotes the whole path. */
  static String forMember(String template, MemberHost host) {
    return template.replace("{member}", host.member().name());
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
