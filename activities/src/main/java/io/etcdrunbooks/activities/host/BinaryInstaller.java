package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.ssh.ExecResult;
import io.etcdrunbooks.activities.ssh.Shell;
import io.etcdrunbooks.activities.ssh.SshCommandException;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.workflows.model.EtcdVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Puts etcd versions on a host as {@code <installDir>/versions/<version>/{etcd,etcdctl,etcdutl}},
 * checked with sha256sum on the host against the worker's copies, and points {@code
 * <installDir>/current} at one of them.
 */
public final class BinaryInstaller implements VersionInstaller {

  public static final List<String> BINARIES = List.of("etcd", "etcdctl", "etcdutl");
  private static final Pattern VERSION_LINE = Pattern.compile("etcd Version:\\s*(\\S+)");
  private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(2);

  private final SshConnector ssh;
  private final Map<Path, CachedDigest> localDigests = new ConcurrentHashMap<>();

  public BinaryInstaller(SshConnector ssh) {
    this.ssh = ssh;
  }

  /** What an install did: whether binaries were copied and whether the current link moved. */
  public record InstallOutcome(boolean uploaded, boolean switched) {}

  /**
   * The version {@code <installDir>/current/etcd --version} reports, "" when nothing is installed.
   */
  @Override
  public String installedVersion(MemberHost host) {
    return versionOf(host, host.member().installDir() + "/current/etcd");
  }

  /** The current link points at the version's directory: no binary is run to tell. */
  @Override
  public boolean selects(MemberHost host, String version) {
    return selectedVersion(host).filter(version::equals).isPresent();
  }

  /** The version directory the current link points at; empty when it points at none. */
  public java.util.Optional<String> selectedVersion(MemberHost host) {
    String link =
        run(
                host,
                "readlink " + quote(host.member().installDir() + "/current") + " 2>/dev/null; true",
                "read the selected etcd version")
            .stdout()
            .strip();
    return link.startsWith("versions/") && link.indexOf('/', "versions/".length()) < 0
        ? java.util.Optional.of(link.substring("versions/".length()))
        : java.util.Optional.empty();
  }

  /** The version the etcd binary at {@code path} on the host reports, "" when there is none. */
  public String versionOf(MemberHost host, String path) {
    String etcd = quote(path);
    ExecResult result =
        run(
            host,
            "if [ -x " + etcd + " ]; then " + etcd + " --version; else echo none; fi",
            "read the installed etcd version");
    if (result.stdout().strip().equals("none")) return "";
    Matcher m = VERSION_LINE.matcher(result.stdout());
    if (!m.find()) {
      throw new SshCommandException(
          "etcd --version on "
              + host.describe()
              + " printed no version: "
              + result.stdout().strip());
    }
    return m.group(1);
  }

  /**
   * Installs the binaries of binDir as the version and selects it; skips whatever is already in
   * place.
   */
  public InstallOutcome install(MemberHost host, String version, Path binDir) {
    return install(host, version, binDir, () -> {});
  }

  /**
   * @param beforeSwitch runs after the upload, before the current link moves; may throw to stop
   *     there
   */
  public InstallOutcome install(
      MemberHost host, String version, Path binDir, Runnable beforeSwitch) {
    boolean uploaded = uploadUnlessPresent(host, version, binDir);
    String link = "versions/" + version;
    beforeSwitch.run();
    String out =
        run(
                host,
                "cd "
                    + quote(host.member().installDir())
                    + " && if [ \"$(readlink current 2>/dev/null)\" = "
                    + quote(link)
                    + " ]; then echo unchanged; else ln -sfn "
                    + quote(link)
                    + " current.tmp && mv -T current.tmp current"
                    + " && echo switched; fi",
                "select etcd " + version)
            .stdout()
            .strip();
    return new InstallOutcome(uploaded, out.equals("switched"));
  }

  @Override
  public String stage(MemberHost host, String version, Path binDir) {
    return uploadUnlessPresent(host, version, binDir)
        ? "uploaded, SHA-256 checked"
        : "already present, SHA-256 checked";
  }

  /**
   * Uploads the version's binaries unless the host has them with the worker's SHA-256. Each check
   * that passes leaves {@link #CHECKED} in the version's directory, holding the sums it found and
   * each file's size and modification time; while that file holds the worker's sums and the files
   * are as it describes them, it stands for the check. So binaries are hashed on the host once,
   * when they arrive, not again at each staging and never inside a member's down time; a file
   * written since is hashed (and uploaded) again.
   */
  private boolean uploadUnlessPresent(MemberHost host, String version, Path binDir) {
    if (!EtcdVersion.isVersion(version))
      throw new IllegalArgumentException("not a major.minor.patch version: '" + version + "'");
    Map<String, String> expected = localChecksums(binDir);
    String versionDir = host.member().installDir() + "/versions/" + version;
    String sums = checkedLines(expected);
    String files = expected.keySet().stream().map(Shell::quote).collect(Collectors.joining(" "));
    String stat = "stat -c '%s %Y %n' " + files + " 2>/dev/null";
    String found =
        ssh.exec(
                host.target(),
                "cd "
                    + quote(versionDir)
                    + " 2>/dev/null && { cat "
                    + CHECKED
                    + " 2>/dev/null;"
                    + " echo --; "
                    + stat
                    + "; }; true",
                COMMAND_TIMEOUT)
            .stdout();
    int split = found.lastIndexOf("--\n");
    if (split >= 0 && found.substring(0, split).equals(sums + found.substring(split + 3)))
      return false;
    boolean present = expected.equals(remoteChecksums(host, versionDir, expected));
    if (!present) upload(host, version, binDir, expected, versionDir);
    run(
        host,
        "cd "
            + quote(versionDir)
            + " && { printf %s "
            + quote(sums)
            + "; "
            + stat
            + "; } > "
            + CHECKED,
        "note the checked SHA-256 of etcd " + version);
    return !present;
  }

  /** Written beside a version's binaries once their SHA-256 matched the worker's. */
  static final String CHECKED = ".sha256-checked";

  private static String checkedLines(Map<String, String> sums) {
    StringBuilder lines = new StringBuilder();
    sums.forEach((name, sum) -> lines.append(sum).append("  ").append(name).append('\n'));
    return lines.toString();
  }

  @Override
  public String installAndSelect(
      MemberHost host, String version, Path binDir, Runnable beforeSwitch) {
    InstallOutcome outcome = install(host, version, binDir, beforeSwitch);
    return (outcome.uploaded() ? "uploaded" : "already present")
        + (outcome.switched() ? ", now selected" : ", already selected");
  }

  private void upload(
      MemberHost host,
      String version,
      Path binDir,
      Map<String, String> expected,
      String versionDir) {
    String staging =
        host.member().installDir()
            + "/versions/."
            + version
            + ".upload-"
            + UUID.randomUUID().toString().substring(0, 8);
    run(host, "mkdir -p " + quote(staging), "create " + staging);
    try {
      Map<String, String> mismatched = new LinkedHashMap<>(expected);
      for (int attempt = 1; attempt <= 2 && !mismatched.isEmpty(); attempt++) {
        for (String name : mismatched.keySet()) {
          String uploading = "uploading " + name + " " + version + " to " + host.member().name();
          Heartbeats.beat(uploading);
          ssh.upload(
              host.target(),
              binDir.resolve(name),
              staging + "/" + name,
              copied -> Heartbeats.beat(uploading + ": " + (copied >> 20) + " MB"));
        }
        Map<String, String> actual = remoteChecksums(host, staging, expected);
        mismatched.keySet().removeIf(name -> expected.get(name).equals(actual.get(name)));
      }
      if (!mismatched.isEmpty()) {
        throw new ChecksumMismatchException(
            "etcd "
                + version
                + " binaries "
                + mismatched.keySet()
                + " uploaded to "
                + host.describe()
                + " twice do not match their SHA-256 on the worker; check the host's disk and free space in "
                + host.member().installDir());
      }
      run(
          host,
          "chmod 755 "
              + expected.keySet().stream()
                  .map(n -> quote(staging + "/" + n))
                  .collect(Collectors.joining(" "))
              + " && rm -rf "
              + quote(versionDir)
              + " && mv -T "
              + quote(staging)
              + " "
              + quote(versionDir),
          "put etcd " + version + " in place");
    } finally {
      run(host, "rm -rf " + quote(staging), "remove " + staging);
    }
  }

  /** name -> sha256 of the binaries as they are in dir on the host; missing ones are absent. */
  private Map<String, String> remoteChecksums(
      MemberHost host, String dir, Map<String, String> names) {
    String files = names.keySet().stream().map(n -> quote(n)).collect(Collectors.joining(" "));
    ExecResult result =
        ssh.exec(
            host.target(),
            "cd " + quote(dir) + " 2>/dev/null && sha256sum " + files + " 2>/dev/null",
            COMMAND_TIMEOUT);
    Map<String, String> sums = new LinkedHashMap<>();
    for (String line : result.stdout().split("\n")) {
      String[] parts = line.strip().split("\\s+\\*?", 2);
      if (parts.length == 2 && names.containsKey(parts[1]))
        sums.put(parts[1], parts[0].toLowerCase());
    }
    return sums;
  }

  /** name -> sha256 of the binaries in binDir, in {@link #BINARIES} order. */
  Map<String, String> localChecksums(Path binDir) {
    Map<String, String> sums = new LinkedHashMap<>();
    for (String name : BINARIES) {
      Path file = binDir.resolve(name);
      if (Files.isRegularFile(file)) sums.put(name, sha256(file));
    }
    if (!sums.containsKey("etcd"))
      throw new IllegalArgumentException("no etcd binary in " + binDir);
    return sums;
  }

  private String sha256(Path file) {
    try {
      long size = Files.size(file);
      long modified = Files.getLastModifiedTime(file).toMillis();
      CachedDigest cached = localDigests.get(file);
      if (cached != null && cached.size == size && cached.modified == modified)
        return cached.sha256;
      String digest = sha256Of(file);
      localDigests.put(file, new CachedDigest(size, modified, digest));
      return digest;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  /** Hex SHA-256 of a file. */
  public static String sha256Of(Path file) throws IOException {
    try (InputStream in = Files.newInputStream(file)) {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      byte[] buf = new byte[1 << 16];
      for (int n; (n = in.read(buf)) > 0; ) md.update(buf, 0, n);
      return HexFormat.of().formatHex(md.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private ExecResult run(MemberHost host, String command, String what) {
    ExecResult result = ssh.exec(host.target(), command, COMMAND_TIMEOUT);
    if (!result.ok()) {
      throw new SshCommandException(
          "cannot "
              + what
              + " on "
              + host.describe()
              + " (exit code "
              + result.exitCode()
              + ")"
              + (result.stderr().isBlank() ? "" : ": " + result.stderr().strip()));
    }
    return result;
  }

  private record CachedDigest(long size, long modified, String sha256) {}

  /** Binaries on the host still differ from the worker's after a second upload. */
  public static final class ChecksumMismatchException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ChecksumMismatchException(String message) {
      super(message);
    }
  }
}
