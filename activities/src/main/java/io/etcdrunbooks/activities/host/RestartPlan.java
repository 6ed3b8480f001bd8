package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ServiceSpec;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * What {@link HostRestart}'s command does between the member's stop and its start, prepared while
 * the member still runs: the version's binaries uploaded and checked, the files that change
 * (translated flags, a static pod's manifest with its new image, a systemd unit's drop-in) written
 * beside the ones they replace. Once etcd has stopped, the command only moves them in place and
 * points the {@code current} link at the version: nothing is left that needs the worker.
 *
 * @param checkScript shell lines checking the stopped member's data dir before the switch ({@link
 *     V2StoreCheck}; {@code :} when there is nothing to check); they start the member again as it
 *     was and fail when the check does not come out clean
 * @param flagsScript shell lines putting the translated flags in place ({@code :} when none)
 * @param selectScript shell lines making the service run the version at its next start
 * @param flagChanges what the flags translation changes, for the runbook's progress
 * @param cleanupScript shell lines the command runs however it ends, removing what was put on the
 *     host for it alone (a static pod's copied etcdutl); empty when none
 */
record RestartPlan(
    String checkScript,
    String flagsScript,
    String selectScript,
    List<String> flagChanges,
    String cleanupScript) {

  RestartPlan(
      String checkScript, String flagsScript, String selectScript, List<String> flagChanges) {
    this(checkScript, flagsScript, selectScript, flagChanges, "");
  }

  /** The suffix of a file written beside the one it is to replace. */
  static final String NEXT = ".etcd-runbooks-next";

  static RestartPlan prepare(
      SshConnector ssh,
      ServiceSpec spec,
      MemberHost host,
      ServiceManager service,
      BinaryInstaller binaries,
      String version,
      Path binDir,
      Function<String, Path> releaseBinDir) {
    String kind = spec == null ? ServiceSpec.PLAIN : spec.kind();
    if (ServiceSpec.STATIC_POD.equals(kind))
      return staticPod(ssh, spec, host, version, releaseBinDir);
    binaries.stage(host, version, binDir);
    String check = V2StoreCheck.script(host, binaries.selectedVersion(host), version, "step_start");
    MemberFlagFiles flagFiles = new MemberFlagFiles(ssh, spec, new ProcessFlagsReader(ssh));
    var translated = flagFiles.translatedEnvFile(host, service, version);
    String flags = ":\n";
    if (translated.isPresent()) {
      MemberFlagFiles.EditedFile file = translated.get();
      String next = file.path() + NEXT;
      if (ServiceSpec.SYSTEMD.equals(kind)) {
        SystemdHost.of(ssh, spec).write(host, next, file.edited().text(), "600");
      } else {
        ssh.writeFile(host.target(), next, file.edited().text());
      }
      flags = replace(file.path(), next, file.before(), file.path() + ".before-flags", false);
    }
    String select = selectLink(host, version);
    if (ServiceSpec.SYSTEMD.equals(kind)) select += systemdDropIn(ssh, spec, host);
    return new RestartPlan(
        check, flags, select, translated.map(f -> f.edited().changes()).orElse(List.of()));
  }

  /**
   * A static pod's flags and image are one manifest: its new text written to the stash dir (kubelet
   * does not read it), put in place of the stashed manifest once etcd has stopped.
   */
  private static RestartPlan staticPod(
      SshConnector ssh,
      ServiceSpec spec,
      MemberHost host,
      String version,
      Function<String, Path> releaseBinDir) {
    StaticPodManifest manifest = new StaticPodManifest(ssh, spec);
    StaticPodManifest.Location location = manifest.locate(host);
    if (location == StaticPodManifest.Location.MISSING) {
      throw new io.etcdrunbooks.activities.ssh.SshCommandException(
          "no etcd manifest for "
              + host.describe()
              + " at "
              + manifest.inPlacePath(host)
              + " or "
              + manifest.stashedPath(host)
              + "; put the member's manifest back first");
    }
    String text = manifest.read(host, manifest.path(host, location));
    FlagEdits.Edited flags =
        FlagEdits.manifest(
            text, version, host.describe() + "'s manifest " + manifest.path(host, location));
    String image = spec.effectiveImage().replace("{version}", version);
    String after;
    try {
      after = ManifestImage.withImage(flags.text(), image);
    } catch (IllegalArgumentException e) {
      throw new io.etcdrunbooks.activities.ssh.SshCommandException(
          "cannot set image " + image + " in the manifest of " + host.describe() + ": " + e);
    }
    if (after.equals(text)) return new RestartPlan(":\n", ":\n", ":\n", List.of());
    String stashed = manifest.stashedPath(host);
    String next = manifest.stashDir(host) + "/." + fileName(stashed) + NEXT;
    manifest.write(host, next, after);
    Optional<String> running = versionOf(text);
    Optional<V2StoreCheck.CopiedEtcdutl> etcdutl =
        running.isEmpty()
            ? Optional.empty()
            : V2StoreCheck.copyTo(ssh, host, running.get(), version, releaseBinDir);
    return new RestartPlan(
        etcdutl
            .map(e -> V2StoreCheck.staticPodScript(host, running.get(), e, "step_start"))
            .orElse(":\n"),
        ":\n",
        replace(stashed, next, text, manifest.backupPath(host), true),
        flags.changes(),
        etcdutl.map(V2StoreCheck.CopiedEtcdutl::removal).orElse(""));
  }

  /** The version a manifest's image names, if its tag names one. */
  private static Optional<String> versionOf(String manifest) {
    try {
      return ManifestImage.versionOf(ManifestImage.imageOf(manifest));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /**
   * Shell lines replacing {@code path} by {@code next}, keeping its owner and mode; the file as it
   * was kept as {@code keep} (always, or only the first time). Refused when the file changed since
   * it was read as {@code before}.
   */
  private static String replace(
      String path, String next, String before, String keep, boolean alwaysKeep) {
    String tmp = path.substring(0, path.lastIndexOf('/') + 1) + "." + fileName(path) + ".tmp";
    return ("echo %1$s | sha256sum -c --status || { echo %2$s >&2; exit 1; }\n"
            + (alwaysKeep ? "cp -p %3$s %4$s\n" : "[ -e %4$s ] || cp -p %3$s %4$s\n")
            + "cp -p %3$s %5$s && cat %6$s > %5$s && mv -f %5$s %3$s && rm -f %6$s\n")
        .formatted(
            quote(sha256(before) + "  " + path),
            quote(path + " changed since the restart was prepared; run again"),
            quote(path),
            quote(keep),
            quote(tmp),
            quote(next));
  }

  /** The {@code current} link pointed at the version's binaries, staged and checked before. */
  private static String selectLink(MemberHost host, String version) {
    String link = "versions/" + version;
    return ("cd %1$s || exit 1\n[ -x %2$s/etcd ] || { echo 'etcd %3$s is not staged in '%1$s >&2;"
            + " exit 1; }\n[ \"$(readlink current 2>/dev/null)\" = %2$s ] || { ln -sfn %2$s"
            + " current.tmp && mv -T current.tmp current; }\n")
        .formatted(quote(host.member().installDir()), quote(link), version);
  }

  /**
   * When the unit runs a binary elsewhere, the runbooks' drop-in pointing ExecStart at the {@code
   * current} link, as {@link SystemdVersionInstaller} writes it; written beside its place, where
   * systemd does not read it.
   */
  private static String systemdDropIn(SshConnector ssh, ServiceSpec spec, MemberHost host) {
    SystemdUnit unit = SystemdUnit.read(ssh, host, spec.effectiveUnit());
    if (unit.binary().equals(host.member().installDir() + "/current/etcd")) return "";
    String dropIn = unit.ownDropIn();
    SystemdHost.of(ssh, spec)
        .write(host, dropIn + NEXT, SystemdVersionInstaller.dropIn(host, unit), "644");
    return "mv -f %s %s && systemctl daemon-reload\n"
        .formatted(quote(dropIn + NEXT), quote(dropIn));
  }

  private static String fileName(String path) {
    return path.substring(path.lastIndexOf('/') + 1);
  }

  private static String sha256(String text) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
