package io.etcdrunbooks.activities.release;

import io.etcdrunbooks.workflows.model.EtcdVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Release tarballs downloaded from a URL template ({version} replaced), each verified against its
 * configured SHA-256 before it is unpacked into {@code <downloadDir>/<version>/bin}. A version
 * without a configured SHA-256 is refused. An already unpacked version is not downloaded again.
 */
public final class UrlTemplateReleaseStore implements ReleaseStore {

  private static final String VERIFIED_MARKER = ".sha256-verified";
  private static final List<String> BINARIES = List.of("etcd", "etcdctl", "etcdutl");

  private final String urlTemplate;
  private final Map<String, String> sha256;
  private final Path downloadDir;
  private final HttpClient http;
  private final Duration downloadTimeout;
  private final Map<String, Object> locks = new ConcurrentHashMap<>();

  public UrlTemplateReleaseStore(String urlTemplate, Map<String, String> sha256, Path downloadDir) {
    this(urlTemplate, sha256, downloadDir, Duration.ofMinutes(10));
  }

  public UrlTemplateReleaseStore(
      String urlTemplate, Map<String, String> sha256, Path downloadDir, Duration downloadTimeout) {
    if (urlTemplate == null || !urlTemplate.contains("{version}")) {
      throw new IllegalArgumentException(
          "releases.urlTemplate must contain {version}, got '" + urlTemplate + "'");
    }
    this.urlTemplate = urlTemplate;
    this.sha256 = Map.copyOf(sha256);
    this.downloadDir = downloadDir;
    this.downloadTimeout = downloadTimeout;
    this.http =
        HttpClient.newBuilder()
            .followRedirects(HttpClient.Redirect.NORMAL)
            .connectTimeout(Duration.ofSeconds(30))
            .build();
  }

  public String urlTemplate() {
    return urlTemplate;
  }

  public Map<String, String> sha256() {
    return sha256;
  }

  public Path downloadDir() {
    return downloadDir;
  }

  /** Versions with a configured SHA-256: those it may download. */
  @Override
  public List<String> versions() {
    return sha256.keySet().stream()
        .filter(EtcdVersion::isVersion)
        .sorted(EtcdVersion.STRING_ORDER)
        .toList();
  }

  @Override
  public Path binDir(String version) {
    if (!EtcdVersion.isVersion(version)) {
      throw new IllegalArgumentException("not a major.minor.patch version: '" + version + "'");
    }
    String expected = sha256.get(version);
    if (expected == null || expected.isBlank()) {
      throw new IllegalArgumentException(
          "etcd "
              + version
              + " has no SHA-256 in releases.sha256, so it is not downloaded from "
              + url(version)
              + "; add the checksum of the release tarball to the inventory (versions with one: "
              + versions()
              + ")");
    }
    Path versionDir = downloadDir.resolve(version);
    synchronized (locks.computeIfAbsent(version, v -> new Object())) {
      if (Files.isRegularFile(versionDir.resolve(VERIFIED_MARKER))
          && Files.isExecutable(versionDir.resolve("bin/etcd"))) {
        return versionDir.resolve("bin");
      }
      try {
        Files.createDirectories(downloadDir);
        Path work = Files.createTempDirectory(downloadDir, "." + version + ".download-");
        try {
          Path tarball = work.resolve("etcd-v" + version + ".tar.gz");
          String actual = download(url(version), tarball);
          if (!actual.equalsIgnoreCase(expected.strip())) {
            throw new ReleaseChecksumException(
                "the tarball of etcd "
                    + version
                    + " from "
                    + url(version)
                    + " has SHA-256 "
                    + actual
                    + " but releases.sha256 says "
                    + expected.strip().toLowerCase(Locale.ROOT)
                    + "; it was discarded. Check the mirror and the configured checksum");
          }
          Path staged = unpack(tarball, work, version);
          Files.writeString(staged.resolve(VERIFIED_MARKER), actual + "  " + url(version) + "\n");
          publish(staged, versionDir);
          return versionDir.resolve("bin");
        } finally {
          deleteTree(work);
        }
      } catch (IOException e) {
        throw new UncheckedIOException(
            "cannot fetch etcd "
                + version
                + " from "
                + url(version)
                + " into "
                + downloadDir
                + ": "
                + e.getMessage(),
            e);
      }
    }
  }

  private String url(String version) {
    return urlTemplate.replace("{version}", version);
  }

  /** Streams the URL into file and returns the hex SHA-256 of what was written. */
  private String download(String url, Path file) throws IOException {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(url)).timeout(downloadTimeout).GET().build();
    HttpResponse<InputStream> response;
    try {
      response = http.send(request, HttpResponse.BodyHandlers.ofInputStream());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while downloading " + url, e);
    }
    MessageDigest md;
    try {
      md = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    try (InputStream in = response.body();
        OutputStream out = new DigestOutputStream(Files.newOutputStream(file), md)) {
      if (response.statusCode() != 200) {
        throw new IOException("HTTP " + response.statusCode() + " from " + url);
      }
      in.transferTo(out);
    }
    return HexFormat.of().formatHex(md.digest());
  }

  /**
   * Unpacks the tarball with the system tar and gathers its etcd binaries into {@code
   * <work>/unpacked/bin}.
   */
  private static Path unpack(Path tarball, Path work, String version) throws IOException {
    Path extracted = Files.createDirectories(work.resolve("extracted"));
    Process tar =
        new ProcessBuilder(
                "tar", "-xzf", tarball.toString(), "-C", extracted.toString(), "--no-same-owner")
            .redirectErrorStream(true)
            .start();
    String output;
    try (InputStream in = tar.getInputStream()) {
      output = new String(in.readAllBytes());
      if (!tar.waitFor(5, TimeUnit.MINUTES) || tar.exitValue() != 0) {
        tar.destroyForcibly();
        throw new IOException(
            "tar could not unpack " + tarball.getFileName() + ": " + output.strip());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      tar.destroyForcibly();
      throw new IOException("interrupted while unpacking", e);
    }
    Path staged = work.resolve("unpacked");
    Path bin = Files.createDirectories(staged.resolve("bin"));
    for (String name : BINARIES) {
      Optional<Path> found = find(extracted, name);
      if (found.isPresent()) {
        Files.copy(found.get(), bin.resolve(name), StandardCopyOption.COPY_ATTRIBUTES);
        bin.resolve(name).toFile().setExecutable(true, false);
      } else if (!name.equals("etcdutl")) {
        throw new IOException("the tarball of etcd " + version + " has no " + name + " binary");
      }
    }
    return staged;
  }

  private static Optional<Path> find(Path root, String name) throws IOException {
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(p -> p.getFileName().toString().equals(name) && Files.isRegularFile(p))
          .min(Comparator.comparingInt(Path::getNameCount));
    }
  }

  /**
   * Moves staged into place; a concurrent process that got there first wins and its copy is kept.
   */
  private static void publish(Path staged, Path versionDir) throws IOException {
    if (Files.exists(versionDir) && !Files.isRegularFile(versionDir.resolve(VERIFIED_MARKER))) {
      deleteTree(versionDir); // a half-written or unverified copy
    }
    try {
      Files.move(staged, versionDir, StandardCopyOption.ATOMIC_MOVE);
    } catch (FileAlreadyExistsException | AtomicMoveNotSupportedException e) {
      if (!Files.isRegularFile(versionDir.resolve(VERIFIED_MARKER))) throw e;
    } catch (IOException e) {
      if (!Files.isRegularFile(versionDir.resolve(VERIFIED_MARKER))) throw e;
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) return;
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
    }
  }
}
