package io.etcdrunbooks.api.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

/**
 * API tokens for tests: random tokens, written to a tokens file as their SHA-256 with a name, role
 * and clusters.
 */
public final class TestTokens {

  /** One per role, and an admin limited to staging clusters. Fresh secrets per JVM. */
  public static final Token VIEWER = Token.of("dashboard", "viewer");

  public static final Token OPERATOR = Token.of("on-call", "operator");
  public static final Token ADMIN = Token.of("sre-lead", "admin");
  public static final Token STAGING = Token.of("staging-bot", "admin", "staging-*");
  public static final List<Token> ALL = List.of(VIEWER, OPERATOR, ADMIN, STAGING);

  /** A token and what the tokens file says about it. */
  public record Token(String name, String role, List<String> clusters, String secret) {
    public static Token of(String name, String role, String... clusters) {
      return new Token(name, role, List.of(clusters), "tok-" + UUID.randomUUID());
    }

    public String bearer() {
      return "Bearer " + secret;
    }
  }

  private TestTokens() {}

  /** Writes the tokens file (mode 0600) and returns its path. */
  public static Path write(Path file, Token... tokens) throws IOException {
    return write(file, List.of(tokens));
  }

  /** Writes the tokens file (mode 0600) and returns its path. */
  public static Path write(Path file, List<Token> tokens) throws IOException {
    StringBuilder yaml = new StringBuilder("tokens:\n");
    for (Token t : tokens) {
      yaml.append("  - name: ")
          .append(t.name())
          .append("\n    sha256: ")
          .append(sha256(t.secret()))
          .append("\n    role: ")
          .append(t.role())
          .append("\n");
      if (!t.clusters().isEmpty())
        yaml.append("    clusters: ")
            .append(t.clusters().stream().map(c -> "\"" + c + "\"").toList())
            .append("\n");
    }
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.deleteIfExists(file);
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, yaml);
    return file;
  }

  public static String sha256(String secret) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
