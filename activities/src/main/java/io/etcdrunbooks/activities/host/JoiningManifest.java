package io.etcdrunbooks.activities.host;

import io.etcdrunbooks.inventory.MemberSpec;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A new member's static-pod manifest made from a running peer's, as kubeadm join would write it:
 * the peer's URLs and data dir become the new member's, its name, initial cluster and image are
 * set, and it joins the existing cluster. Everything else (certificate paths, probes, resources,
 * comments) stays as the peer has it.
 */
final class JoiningManifest {

  private JoiningManifest() {}

  static String from(
      String peerManifest,
      MemberSpec peer,
      MemberSpec member,
      String initialCluster,
      String image) {
    String text =
        peerManifest
            .replace(peer.clientUrl(), member.clientUrl())
            .replace(peer.peerUrl(), member.peerUrl());
    if (!peer.dataDir().equals(member.dataDir())) {
      text =
          text.replaceAll(
              "(?m)^(\\s*(?:-\\s*)?(?:mountPath|path):\\s*)"
                  + Pattern.quote(peer.dataDir())
                  + "\\s*$",
              "$1" + Matcher.quoteReplacement(member.dataDir()));
    }
    text = withFlag(text, "name", member.name());
    text = withFlag(text, "data-dir", member.dataDir());
    text = withFlag(text, "initial-cluster", initialCluster);
    text = withFlag(text, "initial-cluster-state", "existing");
    return ManifestImage.withImage(text, image);
  }

  /**
   * The manifest with {@code - --flag=value} set: replaced where the flag is, else added after
   * {@code --name}.
   */
  static String withFlag(String manifest, String flag, String value) {
    Pattern line = Pattern.compile("(?m)^(\\s*-\\s*--" + Pattern.quote(flag) + "=).*$");
    Matcher m = line.matcher(manifest);
    if (m.find()) return m.replaceFirst(Matcher.quoteReplacement(m.group(1) + value));
    Matcher name = Pattern.compile("(?m)^(\\s*-\\s*)--name=.*$").matcher(manifest);
    if (!name.find())
      throw new IllegalArgumentException(
          "the peer's manifest has no '- --name=...' command line to go by");
    return manifest.substring(0, name.end())
        + "\n"
        + name.group(1)
        + "--"
        + flag
        + "="
        + value
        + manifest.substring(name.end());
  }
}
