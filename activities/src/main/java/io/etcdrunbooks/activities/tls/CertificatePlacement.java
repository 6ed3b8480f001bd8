package io.etcdrunbooks.activities.tls;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Certificate files put on a host where TLS is being enabled: staged in a private directory (the
 * key goes there over SFTP, never on a command line), then each file moved into place with its mode
 * and the owner of a reference path, a file there before kept as {@code <file>.before-<changeId>}.
 * A marker beside the first file records what was placed, so a retry skips a complete placement and
 * the way back removes only what was placed.
 */
final class CertificatePlacement {

  /** Where commands and files go on the host. */
  interface Remote {
    /** A private (0700) directory of the SSH user. */
    String stagingDir();

    void writeFile(String path, String content);

    /** Runs the script with the rights the files need; its stdout. */
    String run(String script, String what);
  }

  /** One file to place: its path on the host, its content, its mode. */
  record File(String path, String content, String mode) {}

  private final Remote remote;
  private final String changeId;
  private final String ownerReference;

  CertificatePlacement(Remote remote, String changeId, String ownerReference) {
    this.remote = remote;
    this.changeId = changeId;
    this.ownerReference = ownerReference;
  }

  /** The marker of this change, beside {@code leafPath}. */
  private String marker(String leafPath) {
    return leafPath.substring(0, leafPath.lastIndexOf('/') + 1)
        + ".etcd-runbooks-"
        + changeId
        + ".placed";
  }

  /**
   * The fingerprint recorded when the leaf certificate at {@code leafPath} was placed by this
   * change and is still there unchanged; empty otherwise.
   */
  String placedFingerprint(String leafPath) {
    String out =
        remote.run(
            ("m=%s; [ -f \"$m\" ] && [ -f %s ] && read -r sha fp < \"$m\""
                    + " && [ \"$sha\" = \"$(sha256sum < %s | cut -d' ' -f1)\" ] && echo \"$fp\""
                    + " || true")
                .formatted(quote(marker(leafPath)), quote(leafPath), quote(leafPath)),
            "look for certificates placed before");
    return out.strip();
  }

  /** Places the files, the leaf certificate (whose fingerprint is recorded) among them. */
  void place(List<File> files, String leafPath, String leafSha256, String fingerprint) {
    String staging = remote.stagingDir();
    StringBuilder script = new StringBuilder("set -e\n");
    Set<String> dirs = new LinkedHashSet<>();
    for (File f : files) dirs.add(f.path().substring(0, f.path().lastIndexOf('/')));
    for (String dir : dirs) script.append("mkdir -p ").append(quote(dir)).append('\n');
    String marker = marker(leafPath);
    script
        .append("echo placing > ")
        .append(quote(marker))
        .append('\n')
        .append(
            ("keep() { if [ -e \"$1\" ] && [ ! -e \"$1.before-%s\" ]; then cp -p \"$1\""
                    + " \"$1.before-%s\"; fi; }\n")
                .formatted(changeId, changeId))
        .append(
            ("put() { cp \"$2\" \"$1.new-%s\"; chmod \"$3\" \"$1.new-%s\";"
                    + " chown --reference=%s \"$1.new-%s\"; mv -f \"$1.new-%s\" \"$1\"; }\n")
                .formatted(changeId, changeId, quote(ownerReference), changeId, changeId));
    for (int i = 0; i < files.size(); i++) {
      File f = files.get(i);
      String staged = staging + "/file-" + i;
      remote.writeFile(staged, f.content());
      script
          .append("keep ")
          .append(quote(f.path()))
          .append("; put ")
          .append(quote(f.path()))
          .append(' ')
          .append(quote(staged))
          .append(' ')
          .append(f.mode())
          .append('\n');
    }
    script
        .append("echo ")
        .append(quote(leafSha256 + " " + fingerprint))
        .append(" > ")
        .append(quote(marker))
        .append('\n');
    remote.run(script.toString(), "put the certificate files in place");
  }

  /**
   * Takes away what this change placed (a file there before put back); true when something was
   * there to take away.
   */
  boolean remove(List<String> paths, String leafPath) {
    StringBuilder script =
        new StringBuilder("set -e\nm=")
            .append(quote(marker(leafPath)))
            .append("\n[ -e \"$m\" ] || { echo none; exit 0; }\n");
    for (String path : paths) {
      script.append(
          ("if [ -e %s.before-%s ]; then mv -f %s.before-%s %s; else rm -f %s; fi\n")
              .formatted(quote(path), changeId, quote(path), changeId, quote(path), quote(path)));
    }
    script.append("rm -f \"$m\"\necho removed\n");
    return remote
        .run(script.toString(), "take the placed certificate files away")
        .strip()
        .equals("removed");
  }
}
