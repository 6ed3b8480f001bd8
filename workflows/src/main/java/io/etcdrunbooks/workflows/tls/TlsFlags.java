package io.etcdrunbooks.workflows.tls;

import io.etcdrunbooks.workflows.activities.TlsActivities.PlacedCertificates;
import io.etcdrunbooks.workflows.model.MemberFlags;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The flags of a member on its way from http to https, derived from the flags it ran with before
 * (so a member listening on several addresses keeps them all): first both schemes on the client
 * port; then clients on TLS only, with the peer certificate for dialling peers; then peers on TLS.
 * The peer certificate comes only once the client port is TLS only: etcd 3.4.23 given peer
 * certificate flags while serving http and https on one client port stops answering gRPC on http
 * (measured here; 3.5.30 does not), which would cut the worker and the apiservers off mid-move.
 */
final class TlsFlags {

  private TlsFlags() {}

  static Map<String, String> bothSchemes(TlsRun run, String member) {
    MemberFlags before = run.flags.get(member);
    MemberPlacement urls = run.placements.get(member);
    PlacedCertificates files = run.placed.get(member);
    Map<String, String> flags = new LinkedHashMap<>();
    if (run.enablingClients()) {
      flags.put(
          "--listen-client-urls",
          withHttps(before.value("--listen-client-urls").orElse(urls.clientUrl()), true));
      flags.put(
          "--advertise-client-urls",
          withHttps(before.value("--advertise-client-urls").orElse(urls.clientUrl()), true));
      flags.put("--cert-file", files.certFile());
      flags.put("--key-file", files.keyFile());
      flags.put("--trusted-ca-file", files.caFile());
      flags.put("--client-cert-auth", "true");
    }
    return flags;
  }

  static Map<String, String> tlsOnly(TlsRun run, String member) {
    MemberFlags before = run.flags.get(member);
    MemberPlacement urls = run.placements.get(member);
    PlacedCertificates files = run.placed.get(member);
    Map<String, String> flags = new LinkedHashMap<>(bothSchemes(run, member));
    if (run.enablingClients()) {
      flags.put(
          "--listen-client-urls",
          withHttps(before.value("--listen-client-urls").orElse(urls.clientUrl()), false));
      flags.put(
          "--advertise-client-urls",
          withHttps(before.value("--advertise-client-urls").orElse(urls.clientUrl()), false));
    }
    if (run.enablingPeers()) {
      // the member dials https peers with these; it listens on http until peerTls
      flags.put("--peer-cert-file", files.certFile());
      flags.put("--peer-key-file", files.keyFile());
      flags.put("--peer-trusted-ca-file", files.caFile());
      flags.put("--peer-client-cert-auth", "true");
    }
    return flags;
  }

  static Map<String, String> peerTls(TlsRun run, String member) {
    MemberFlags before = run.flags.get(member);
    MemberPlacement urls = run.placements.get(member);
    Map<String, String> flags = new LinkedHashMap<>(tlsOnly(run, member));
    if (run.enablingPeers()) {
      flags.put(
          "--listen-peer-urls",
          withHttps(before.value("--listen-peer-urls").orElse(urls.peerUrl()), false));
      flags.put(
          "--initial-advertise-peer-urls",
          withHttps(before.value("--initial-advertise-peer-urls").orElse(urls.peerUrl()), false));
      // read by etcd only when a member first joins; kept true for whoever copies these flags
      before
          .value("--initial-cluster")
          .ifPresent(
              cluster -> flags.put("--initial-cluster", cluster.replace("=http://", "=https://")));
    }
    return flags;
  }

  /**
   * The URL list with each http URL served on https too ({@code keepHttp}), or moved to https; the
   * order kept, no URL twice.
   */
  static String withHttps(String urls, boolean keepHttp) {
    List<String> out = new ArrayList<>();
    for (String url : urls.split(",")) {
      String u = url.strip();
      if (u.isEmpty()) continue;
      if (u.startsWith("http://")) {
        if (keepHttp) addOnce(out, u);
        addOnce(out, https(u));
      } else {
        addOnce(out, u);
      }
    }
    return String.join(",", out);
  }

  static String https(String url) {
    return url.startsWith("http://") ? "https://" + url.substring("http://".length()) : url;
  }

  private static void addOnce(List<String> list, String url) {
    if (!list.contains(url)) list.add(url);
  }
}
