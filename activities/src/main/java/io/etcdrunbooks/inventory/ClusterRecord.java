package io.etcdrunbooks.inventory;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * The fields of a cluster's entry that runbooks own, as they recorded them: members (added,
 * removed, replaced; their client and peer URLs), tombstones of fenced members, and the client TLS
 * section. Everything else is the operator's and is always read from the inventory file.
 */
public record ClusterRecord(List<MemberSpec> members, List<FencedMemberSpec> fenced, TlsSpec tls) {

  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory())
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

  public ClusterRecord {
    members = members == null ? List.of() : List.copyOf(members);
    fenced = fenced == null ? List.of() : List.copyOf(fenced);
  }

  /** What the runbooks own of {@code cluster}. */
  public static ClusterRecord of(ClusterSpec cluster) {
    return new ClusterRecord(cluster.members(), cluster.fenced(), cluster.tls());
  }

  /**
   * The operator's entry with this record over it. The warning window of the TLS section stays the
   * operator's: runbooks never set it.
   */
  public ClusterSpec over(ClusterSpec operators) {
    TlsSpec recorded = tls;
    if (recorded != null && operators.tls() != null) {
      recorded =
          new TlsSpec(
              recorded.caFile(),
              recorded.certFile(),
              recorded.keyFile(),
              operators.tls().expiryWarningDays());
    }
    return operators.withMembers(members).withFenced(fenced).withTls(recorded);
  }

  /** The record as the store keeps it: YAML, as the inventory file has these fields. */
  public String toYaml() {
    try {
      return YAML.writeValueAsString(this);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write a cluster record: " + e.getMessage(), e);
    }
  }

  /**
   * @param where where it was read, for the message
   */
  public static ClusterRecord parse(String yaml, String where) {
    try {
      return YAML.readValue(yaml, ClusterRecord.class);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "cannot read the runbooks' record " + where + ": " + e.getMessage(), e);
    }
  }
}
