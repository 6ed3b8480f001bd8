package io.etcdrunbooks.workflows.model;

import java.util.Map;

/**
 * The certificates each member showed in real TLS handshakes: on its client URL, and on its peer
 * URL when that is https. Members reached over http, or that did not answer, are absent.
 *
 * @param notAfterByMember member -> the end of its server certificate's validity, as an ISO-8601
 *     instant
 * @param warningDays a certificate that expires within this many days is refused by preflights
 * @param peerNotAfterByMember member -> the end of its peer certificate's validity (absent in
 *     histories of runs started before peer certificates were read)
 */
public record ServerCertificates(
    Map<String, String> notAfterByMember,
    int warningDays,
    Map<String, String> peerNotAfterByMember) {

  public static final int DEFAULT_WARNING_DAYS = 14;

  public ServerCertificates {
    notAfterByMember = notAfterByMember == null ? Map.of() : Map.copyOf(notAfterByMember);
    peerNotAfterByMember =
        peerNotAfterByMember == null ? Map.of() : Map.copyOf(peerNotAfterByMember);
  }

  /** Server certificates only: a cluster whose peers speak http. */
  public static ServerCertificates servedOnClientUrls(
      Map<String, String> notAfterByMember, int warningDays) {
    return new ServerCertificates(notAfterByMember, warningDays, Map.of());
  }
}
