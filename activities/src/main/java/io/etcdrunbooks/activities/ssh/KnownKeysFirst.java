package io.etcdrunbooks.activities.ssh;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.sshd.client.config.hosts.KnownHostEntry;

/**
 * The host key algorithms the client proposes, those of the host's keys in known_hosts first, as
 * OpenSSH's client orders them. Without this the client asks an OpenSSH server (which has ed25519,
 * ECDSA and RSA host keys) for its ed25519 key even when known_hosts holds only its RSA key, and a
 * host known the usual way is refused as unknown.
 */
final class KnownKeysFirst {

  private KnownKeysFirst() {}

  /**
   * {@code proposal} (comma-separated signature algorithms, the client's order) with those that
   * verify a key type known_hosts has for host:port moved to the front, each group in its order.
   */
  static String reorder(String proposal, Path knownHosts, String host, int port) {
    Set<String> known = signatureAlgorithms(keyTypes(knownHosts, host, port));
    if (proposal == null || known.isEmpty()) return proposal;
    List<String> first = new ArrayList<>();
    List<String> rest = new ArrayList<>();
    for (String algorithm : proposal.split(",")) {
      (known.contains(algorithm) ? first : rest).add(algorithm);
    }
    first.addAll(rest);
    return String.join(",", first);
  }

  /** The key types ("ssh-rsa", "ssh-ed25519") of the entries for host:port, hashed or not. */
  static Set<String> keyTypes(Path knownHosts, String host, int port) {
    Set<String> types = new LinkedHashSet<>();
    if (knownHosts == null || !Files.isReadable(knownHosts)) return types;
    try {
      for (KnownHostEntry entry : KnownHostEntry.readKnownHostEntries(knownHosts)) {
        if (entry.getMarker() == null
            && entry.isHostMatch(host, port)
            && entry.getKeyEntry() != null) {
          types.add(entry.getKeyEntry().getKeyType());
        }
      }
    } catch (IOException | RuntimeException e) {
      // an unreadable file: the verifier refuses the host with the reason; no reordering here
    }
    return types;
  }

  /** An RSA key is verified with rsa-sha2-512, rsa-sha2-256 or ssh-rsa; other types by name. */
  private static Set<String> signatureAlgorithms(Set<String> keyTypes) {
    Set<String> algorithms = new LinkedHashSet<>();
    for (String type : keyTypes) {
      if (type.equals("ssh-rsa")) {
        algorithms.addAll(List.of("rsa-sha2-512", "rsa-sha2-256", "ssh-rsa"));
      } else {
        algorithms.add(type);
      }
    }
    return algorithms;
  }
}
