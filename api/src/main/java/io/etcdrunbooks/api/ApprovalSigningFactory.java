package io.etcdrunbooks.api;

import io.etcdrunbooks.secrets.SecretFiles;
import io.etcdrunbooks.workflows.common.ApprovalSigning;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The key that signs approvals needing a role (the API and Slack sign, the worker's runbooks check;
 * {@link ApprovalSigning}). {@code runbooks.approvals.signing-key-file} holds it base64-encoded (at
 * least 32 bytes, as {@code openssl rand -base64 32} prints it), a secret file ({@link
 * SecretFiles}); processes that run the API and the worker apart must share it. Without it, a
 * process that runs both signs with a random key of its own. {@code
 * runbooks.approvals.require-signed-token: false} turns the check off: Temporal's own authorization
 * then decides who may approve.
 */
@Factory
public final class ApprovalSigningFactory {

  private static final Logger LOG = LoggerFactory.getLogger(ApprovalSigningFactory.class);

  @Singleton
  ApprovalSigning approvalSigning(
      @Value("${runbooks.approvals.signing-key-file:}") String keyFile,
      @Value("${runbooks.approvals.require-signed-token:true}") boolean required)
      throws IOException {
    if (!required) {
      LOG.warn(
          "runbooks.approvals.require-signed-token is false: a runbook takes an approval that needs"
              + " a role without a signed token; Temporal's authorization must guard the namespace");
      return ApprovalSigning.OFF;
    }
    if (keyFile.isBlank()) {
      byte[] key = new byte[32];
      new SecureRandom().nextBytes(key);
      LOG.info(
          "no runbooks.approvals.signing-key-file: approvals that need a role are signed with a key"
              + " of this process only (an API and a worker in separate processes need the file)");
      return ApprovalSigning.processKey(key);
    }
    Path file = Path.of(keyFile);
    String text =
        new String(
                SecretFiles.readAllBytes("approval signing key file", file),
                StandardCharsets.US_ASCII)
            .strip();
    byte[] key;
    try {
      key = Base64.getDecoder().decode(text);
    } catch (IllegalArgumentException e) {
      throw new IOException(
          "approval signing key file " + file + " does not hold base64 (openssl rand -base64 32)");
    }
    try {
      return ApprovalSigning.withKey(key);
    } catch (IllegalArgumentException e) {
      throw new IOException("approval signing key file " + file + ": " + e.getMessage());
    }
  }
}
