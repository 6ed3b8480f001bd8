package io.etcdrunbooks.workflows.common;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Optional;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs and checks the {@link ApprovalToken} of an approval that needs a role, with a key the API
 * (or Slack) and the worker share ({@code runbooks.approvals.signing-key-file}). The worker gives
 * it to each runbook through its workflow implementation factory, so workflow code reads no file;
 * the key never leaves this object (no getter, no toString of it).
 */
public final class ApprovalSigning {

  private static final String HMAC = "HmacSHA256";

  /** The role check is off: Temporal's own authorization guards who may update runbooks. */
  public static final ApprovalSigning OFF = new ApprovalSigning(null, false, false);

  /** No key was given (a runbook registered without the worker's factory): refuses every token. */
  public static final ApprovalSigning NO_KEY = new ApprovalSigning(null, true, false);

  private final byte[] key;
  private final boolean required;
  private final boolean shared;

  private ApprovalSigning(byte[] key, boolean required, boolean shared) {
    this.shared = shared;
    this.key = key;
    this.required = required;
  }

  /** The key of the operator's key file, shared by the API and the worker. */
  public static ApprovalSigning withKey(byte[] key) {
    return of(key, true);
  }

  /**
   * A key of this process only (no key file): approvals the API or Slack of this process sign are
   * checked, and the {@code approve} signal still approves (scripts and the demo use it).
   */
  public static ApprovalSigning processKey(byte[] key) {
    return of(key, false);
  }

  private static ApprovalSigning of(byte[] key, boolean shared) {
    if (key == null || key.length < 32) {
      throw new IllegalArgumentException(
          "an approval signing key needs at least 32 bytes (256 bits), got "
              + (key == null ? 0 : key.length));
    }
    return new ApprovalSigning(key.clone(), true, shared);
  }

  /**
   * Whether the {@code approve} signal, which carries no token, is refused for a runbook whose
   * approval needs a role: with the operator's shared key file, where the rule must hold on every
   * path.
   */
  public boolean refusesUnsignedSignals() {
    return required && shared;
  }

  /** Whether approvals that need a role must carry a valid token. */
  public boolean required() {
    return required;
  }

  /**
   * The token for {@code by}, found by the caller to have {@code role}, approving {@code planId}.
   */
  public ApprovalToken sign(
      String workflowId, String planId, String by, String role, long expiresAtMillis) {
    if (key == null) throw new IllegalStateException("no approval signing key configured");
    return new ApprovalToken(
        role, expiresAtMillis, mac(workflowId, planId, by, role, expiresAtMillis));
  }

  /**
   * Why {@code request} does not prove that its approver has {@code role}, or empty when it does
   * (or when the check is off).
   */
  public Optional<String> whyNot(
      String workflowId, ApproveRequest request, String role, long nowMillis) {
    if (!required) return Optional.empty();
    ApprovalToken token = request.token();
    if (token == null || token.mac() == null || token.mac().isBlank()) {
      return Optional.of(
          ("this runbook's approval needs %s; it carries no signed token: approve it through the"
                  + " API (POST /api/v1/runbooks/%s/approve) or Slack, which check the role and sign"
                  + " it")
              .formatted(role, workflowId));
    }
    if (key == null) {
      return Optional.of(
          "the worker has no approval signing key (runbooks.approvals.signing-key-file) to check"
              + " the token with");
    }
    if (!role.equals(token.role())) {
      return Optional.of("the token is for role " + token.role() + ", this approval needs " + role);
    }
    String expected =
        mac(workflowId, request.planId(), request.by(), token.role(), token.expiresAtMillis());
    if (!MessageDigest.isEqual(
        expected.getBytes(StandardCharsets.US_ASCII),
        token.mac().getBytes(StandardCharsets.US_ASCII))) {
      return Optional.of(
          "the token's signature does not match this runbook, plan, approver and role (forged, or"
              + " signed with another key than the worker's)");
    }
    if (token.expiresAtMillis() <= nowMillis) {
      return Optional.of("the token expired: approve again through the API or Slack");
    }
    return Optional.empty();
  }

  private String mac(String workflowId, String planId, String by, String role, long expiresAt) {
    try {
      Mac mac = Mac.getInstance(HMAC);
      mac.init(new SecretKeySpec(key, HMAC));
      // length-prefixed fields: no two different field lists sign the same bytes
      StringBuilder message = new StringBuilder("etcd-runbooks approval v1");
      for (String field : new String[] {workflowId, planId, by, role, Long.toString(expiresAt)}) {
        String value = field == null ? "" : field;
        message.append('\n').append(value.length()).append(':').append(value);
      }
      return Base64.getUrlEncoder()
          .withoutPadding()
          .encodeToString(mac.doFinal(message.toString().getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HMAC-SHA256 is not available", e);
    }
  }

  @Override
  public String toString() {
    return required
        ? (key == null ? "ApprovalSigning[no key]" : "ApprovalSigning[key]")
        : "ApprovalSigning[off]";
  }
}
