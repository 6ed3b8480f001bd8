package io.etcdrunbooks.workflows.common;

/**
 * What an approval that needs a role carries: the role the API or Slack found the approver to have,
 * until when the signature holds, and the signature ({@link ApprovalSigning}, an HMAC-SHA256 over
 * the workflow id, the plan id, the approver, the role and the expiry). A MAC, not the key: it may
 * be kept in the history.
 *
 * @param role the approver's role, for example {@code admin}
 * @param expiresAtMillis epoch milliseconds after which the token is refused
 * @param mac the HMAC-SHA256, base64url without padding
 */
public record ApprovalToken(String role, long expiresAtMillis, String mac) {}
