package io.etcdrunbooks.api.auth;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.etcdrunbooks.secrets.SecretFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The API's bearer tokens, as SHA-256 hashes with a name, a role and the clusters they may act on,
 * from a YAML file (see docs/configuration.md). The file is read again when it changes, so tokens
 * can be added and revoked without a restart; a file that does not load keeps the tokens loaded
 * before, or refuses everyone when there were none. A file that breaks the secret file rule ({@link
 * SecretFiles}: mode 0600 or 0400, owned by this process's user or root) loads no token at all,
 * whatever was loaded before, until it is fixed.
 */
public final class ApiTokens {

  private static final String WHAT = "the API tokens file";
  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory())
          .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

  /** One entry of the file. */
  record Entry(String name, String sha256, String role, List<String> clusters) {}

  record File(List<Entry> tokens) {}

  private record Loaded(byte[] sha256, Caller caller) {}

  private final Path file;
  private FileTime loadedAt;
  private List<Loaded> tokens = List.of();
  private String problem;

  /**
   * @param file the tokens file; null or blank: no tokens, every call is refused
   */
  public ApiTokens(String file) {
    this.file = file == null || file.isBlank() ? null : Path.of(file);
  }

  /**
   * The caller a presented bearer token belongs to; empty when it belongs to none. Compares hashes
   * in constant time.
   */
  public synchronized Optional<Caller> authenticate(String token) {
    reloadIfChanged();
    byte[] presented = sha256(token.strip());
    Caller found = null;
    for (Loaded t : tokens) {
      if (MessageDigest.isEqual(presented, t.sha256())) found = t.caller();
    }
    return Optional.ofNullable(found);
  }

  /** Why no call can be authenticated at all, or empty when tokens are loaded. */
  public synchronized Optional<String> unusable() {
    reloadIfChanged();
    if (file == null)
      return Optional.of(
          "API authentication is not configured: set runbooks.api.tokens-file (see docs/configuration.md)");
    if (tokens.isEmpty())
      return Optional.of(
          "no API token is loaded from " + file + (problem == null ? "" : ": " + problem));
    return Optional.empty();
  }

  // The secret file rule is checked on every call, not only when the file changes: a chmod does not
  // change the mtime.
  private void reloadIfChanged() {
    if (file == null) return;
    try {
      SecretFiles.check(WHAT, file);
    } catch (SecretFiles.Refused e) {
      tokens = List.of(); // fail closed: tokens others may have read or changed are not trusted
      loadedAt = null;
      problem = e.getMessage();
      return;
    } catch (IOException e) {
      problem = "cannot read it (" + e.getClass().getSimpleName() + ")";
      return;
    }
    try {
      FileTime modified = Files.getLastModifiedTime(file);
      if (modified.equals(loadedAt)) return;
      loadedAt = modified;
      tokens = load(file);
      problem = null;
    } catch (SecretFiles.Refused | IllegalArgumentException e) {
      problem = e.getMessage();
    } catch (IOException e) {
      problem = "cannot read it (" + e.getClass().getSimpleName() + ")";
    }
  }

  static List<Loaded> load(Path file) throws IOException {
    File parsed = YAML.readValue(SecretFiles.readString(WHAT, file), File.class);
    List<Loaded> loaded = new ArrayList<>();
    Set<String> names = new HashSet<>();
    Set<String> hashes = new HashSet<>();
    List<Entry> entries = parsed == null || parsed.tokens() == null ? List.of() : parsed.tokens();
    for (int i = 0; i < entries.size(); i++) {
      Entry e = entries.get(i);
      String where = file + " token " + (i + 1) + (e.name() == null ? "" : " '" + e.name() + "'");
      if (e.name() == null || !e.name().matches("[A-Za-z0-9][A-Za-z0-9@._-]{0,63}")) {
        throw new IllegalArgumentException(
            where + ": name must be 1-64 letters, digits, '@', '.', '_' or '-'");
      }
      String hash = e.sha256() == null ? "" : e.sha256().strip().toLowerCase();
      if (!hash.matches("[0-9a-f]{64}")) {
        // never echoed: it may be a plain token pasted by mistake
        throw new IllegalArgumentException(
            where + ": sha256 must be the 64 hex digits of the token's SHA-256, not the token");
      }
      if (!names.add(e.name()))
        throw new IllegalArgumentException(where + ": the name is used twice");
      if (!hashes.add(hash))
        throw new IllegalArgumentException(where + ": the same token is listed twice");
      loaded.add(
          new Loaded(
              HexFormat.of().parseHex(hash),
              new Caller(e.name(), Role.parse(where, e.role()), e.clusters())));
    }
    return List.copyOf(loaded);
  }

  static byte[] sha256(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
