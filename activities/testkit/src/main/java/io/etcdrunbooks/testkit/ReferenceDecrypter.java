package io.etcdrunbooks.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * deploy/scripts/decrypt-backup.py, the backup decrypter written from docs/backup-format.md alone
 * in Python, run with only the packages deploy/scripts/fetch-python.sh pins ({@code python3 -S}: no
 * site-packages of the machine).
 */
public final class ReferenceDecrypter {

  /** How a run of the script ended. */
  public record Outcome(int exitCode, String output) {}

  private ReferenceDecrypter() {}

  public static Outcome decrypt(Path in, Path out, Path keyFile, String keyId)
      throws IOException, InterruptedException {
    Path root = repositoryRoot();
    Path script = root.resolve("deploy/scripts/decrypt-backup.py");
    Path packages = packages(root.resolve("deploy/python/requirements.txt"));
    ProcessBuilder builder =
        new ProcessBuilder(
                List.of(
                    "python3",
                    "-S",
                    script.toString(),
                    "--in",
                    in.toString(),
                    "--out",
                    out.toString(),
                    "--key-file",
                    keyFile.toString(),
                    "--key-id",
                    keyId))
            .redirectErrorStream(true);
    builder.environment().put("PYTHONPATH", packages.toString());
    Process process = builder.start();
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(60, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException(script + " did not end within 60 s: " + output);
    }
    return new Outcome(process.exitValue(), output.strip());
  }

  private static Path packages(Path requirements) throws IOException {
    String digest;
    try {
      digest =
          HexFormat.of()
              .formatHex(
                  MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(requirements)))
              .substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    Path dir = EtcdReleases.dir().resolveSibling("python").resolve(digest);
    if (!Files.isDirectory(dir.resolve("cryptography"))) {
      throw new IllegalStateException(
          "the Python packages of "
              + requirements
              + " are not cached in "
              + dir
              + "; run deploy/scripts/fetch-python.sh");
    }
    return dir;
  }

  private static Path repositoryRoot() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (Files.exists(dir.resolve("deploy/scripts/decrypt-backup.py"))) return dir;
    }
    throw new IllegalStateException(
        "deploy/scripts/decrypt-backup.py not found above " + Path.of("").toAbsolutePath());
  }
}
