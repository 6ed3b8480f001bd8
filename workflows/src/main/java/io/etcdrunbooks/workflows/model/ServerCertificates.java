package io.etcdrunbooks.workflows.model;

import java.util.Map;

/**
 * The server certificate each member showed in a real TLS handshake on its client URL, and how long
 * before expiry one counts as a problem. Members reached over http, or that did not answer, are
 * absent.
 *
 * @param notAfterByMember member -> the end of its certificate's validity, as an ISO-8601 instant
 * @param warningDays a certificate that expires within this many days is refused by preflights
 */
public record ServerCertificates(Map<String, String> notAfterByMember, int warningDays) {

  public static final int DEFAULT_WARNING_DAYS = 14;

  public ServerCertificates {
    notAfterByMember = notAfterByMember == null ? Map.of() : Map.copyOf(notAfterByMember);
  }
}
