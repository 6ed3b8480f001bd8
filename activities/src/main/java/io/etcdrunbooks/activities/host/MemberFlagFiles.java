package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.ssh.ExecResult;
import io.etcdrunbooks.activities.ssh.SshCommandException;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.workflows.model.MemberFlags;
import io.etcdrunbooks.workflows.upgrade.FlagTranslations;
import io.temporal.failure.ApplicationFailure;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Where a member's flags live, translated there for the version it is about to run: a plain
 * member's {@code etcd.env}, a systemd unit's environment file (as {@code systemctl show} names it;
 * the unit itself is not edited, so a flag on its ExecStart is refused by name), a static pod's
 * manifest (in place or stashed). The previous file is kept beside it.
 */
final class MemberFlagFiles {

  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final SshConnector ssh;
  private final ServiceSpec spec;
  private final ProcessFlagsReader running;

  MemberFlagFiles(SshConnector ssh, ServiceSpec spec, ProcessFlagsReader running) {
    this.ssh = ssh;
    this.spec = spec;
    this.running = running;
  }

  /**
   * What changes for {@code version}, "--debug -> --log-level=debug"; written only when {@code
   * apply}.
   */
  List<String> translate(MemberHost host, ServiceManager service, String version, boolean apply) {
    String kind = spec == null ? ServiceSpec.PLAIN : spec.kind();
    if (ServiceSpec.STATIC_POD.equals(kind)) return manifest(host, version, apply);
    if (ServiceSpec.SYSTEMD.equals(kind)) {
      SystemdUnit unit = SystemdUnit.read(ssh, host, spec.effectiveUnit());
      refuseRenamedOnCommandLine(host, unit, service, version);
      return unit.environmentFile()
          .map(path -> envFile(host, path, version, apply))
          .orElse(List.of());
    }
    return envFile(host, envPath(host), version, apply);
  }

  /**
   * The environment file of a plain or systemd member with its flags translated for {@code
   * version}, not written: {@link RestartPlan} puts it in place on the host once etcd has stopped.
   * Empty when nothing changes (or a systemd unit reads no environment file); refuses as {@link
   * #translate} does.
   */
  java.util.Optional<EditedFile> translatedEnvFile(
      MemberHost host, ServiceManager service, String version) {
    String path;
    if (ServiceSpec.SYSTEMD.equals(spec == null ? null : spec.kind())) {
      SystemdUnit unit = SystemdUnit.read(ssh, host, spec.effectiveUnit());
      refuseRenamedOnCommandLine(host, unit, service, version);
      if (unit.environmentFile().isEmpty()) return java.util.Optional.empty();
      path = unit.environmentFile().get();
    } else {
      path = envPath(host);
    }
    String text = read(host, path);
    FlagEdits.Edited edited = FlagEdits.envFile(text, version, host.describe() + "'s " + path);
    return edited.changes().isEmpty()
        ? java.util.Optional.empty()
        : java.util.Optional.of(new EditedFile(path, text, edited));
  }

  /** A flags file as it was read and as it is to be. */
  record EditedFile(String path, String before, FlagEdits.Edited edited) {}

  /**
   * Sets {@code flags} (name to value) where the member's flags live; the file as it was kept as
   * {@code <file>.before-<changeId>} (a static pod's in its stash dir, which kubelet does not read)
   * the first time. What changes; written only when {@code apply}. A systemd member fails,
   * non-retryably: its unit is not edited.
   */
  List<String> set(MemberHost host, Map<String, String> flags, String changeId, boolean apply) {
    String kind = spec == null ? ServiceSpec.PLAIN : spec.kind();
    if (ServiceSpec.SYSTEMD.equals(kind)) {
      SystemdUnit unit = SystemdUnit.read(ssh, host, spec.effectiveUnit());
      List<String> onCommandLine = flags.keySet().stream().filter(unit::commandLineSets).toList();
      if (!onCommandLine.isEmpty() || unit.environmentFile().isEmpty()) {
        throw systemdNotEdited(
            host, unit, onCommandLine.isEmpty() ? flags.keySet() : onCommandLine);
      }
      String path = unit.environmentFile().get();
      String text = read(host, path);
      FlagSettings.Edited edited = FlagSettings.envFile(text, flags);
      if (apply && !edited.changes().isEmpty()) {
        writeKeeping(host, path, path + ".before-" + changeId, edited.text());
      }
      return edited.changes();
    }
    if (ServiceSpec.STATIC_POD.equals(kind)) {
      StaticPodManifest manifest = new StaticPodManifest(ssh, spec);
      String path = manifest.path(host, present(manifest, host));
      String text = manifest.read(host, path);
      FlagSettings.Edited edited = FlagSettings.manifest(text, flags);
      if (apply && !edited.changes().isEmpty()) {
        String keep = manifest.stashedPath(host) + ".before-" + changeId;
        manifest.run(
            host,
            "set -e\nmkdir -p %s\n[ -e %s ] || cp -p %s %s\n"
                .formatted(quote(manifest.stashDir(host)), quote(keep), quote(path), quote(keep)),
            "keep " + path);
        manifest.replace(host, path, text, edited.text());
      }
      return edited.changes();
    }
    String path = envPath(host);
    String text = ssh.readFile(host.target(), path);
    FlagSettings.Edited edited = FlagSettings.envFile(text, flags);
    if (apply && !edited.changes().isEmpty()) {
      writeKeeping(host, path, path + ".before-" + changeId, edited.text());
    }
    return edited.changes();
  }

  /**
   * Puts the file kept by {@link #set} for {@code changeId} back where the member's flags live;
   * false when there is none.
   */
  boolean restore(MemberHost host, String changeId) {
    Optional<Kept> kept = kept(host, changeId);
    if (kept.isEmpty()) return false;
    String path = kept.get().path();
    String keep = kept.get().keep();
    String dir = path.substring(0, path.lastIndexOf('/'));
    String tmp = dir + "/." + path.substring(path.lastIndexOf('/') + 1) + ".etcd-runbooks.tmp";
    ExecResult result =
        exec(
            host,
            ("set -e\nif [ -e %s ]; then cp -p %s %s; mv -f %s %s; echo back; else echo none;"
                    + " fi\n")
                .formatted(quote(keep), quote(keep), quote(tmp), quote(tmp), quote(path)));
    check(host, result, "put " + keep + " back");
    return result.stdout().strip().equals("back");
  }

  /**
   * Whether {@link #restore} would change what the member's flags file says: the file kept for
   * {@code changeId} is there and differs from it.
   */
  boolean restoreChanges(MemberHost host, String changeId) {
    Optional<Kept> kept = kept(host, changeId);
    if (kept.isEmpty()) return false;
    ExecResult result =
        exec(
            host,
            "if [ -e %1$s ] && ! cmp -s %1$s %2$s; then echo differs; else echo same; fi\n"
                .formatted(quote(kept.get().keep()), quote(kept.get().path())));
    check(host, result, "compare " + kept.get().keep() + " with " + kept.get().path());
    return result.stdout().strip().equals("differs");
  }

  /** Where the member's flags live now and where {@link #set} keeps them as they were. */
  private record Kept(String path, String keep) {}

  private Optional<Kept> kept(MemberHost host, String changeId) {
    String kind = spec == null ? ServiceSpec.PLAIN : spec.kind();
    if (ServiceSpec.STATIC_POD.equals(kind)) {
      StaticPodManifest manifest = new StaticPodManifest(ssh, spec);
      return Optional.of(
          new Kept(
              manifest.path(host, present(manifest, host)),
              manifest.stashedPath(host) + ".before-" + changeId));
    }
    String path =
        ServiceSpec.SYSTEMD.equals(kind)
            ? SystemdUnit.read(ssh, host, spec.effectiveUnit()).environmentFile().orElse(null)
            : envPath(host);
    return path == null
        ? Optional.empty()
        : Optional.of(new Kept(path, path + ".before-" + changeId));
  }

  private static StaticPodManifest.Location present(StaticPodManifest manifest, MemberHost host) {
    StaticPodManifest.Location location = manifest.locate(host);
    if (location == StaticPodManifest.Location.MISSING) {
      throw ApplicationFailure.newNonRetryableFailure(
          host.describe() + " has no etcd manifest, running or stopped", "ManifestMissing");
    }
    return location;
  }

  private static String envPath(MemberHost host) {
    return host.member().serviceDir() + "/" + PlainProcessServiceManager.ENV_FILE;
  }

  private void writeKeeping(MemberHost host, String path, String keep, String text) {
    String encoded = Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    check(
        host,
        exec(
            host,
            ("set -e\n[ -e %s ] || cp -p %s %s\n"
                    + "printf '%%s' %s | base64 -d > %s.tmp\nchmod --reference=%s %s.tmp\n"
                    + "mv -f %s.tmp %s\n")
                .formatted(
                    quote(keep),
                    quote(path),
                    quote(keep),
                    quote(encoded),
                    quote(path),
                    quote(path),
                    quote(path),
                    quote(path),
                    quote(path))),
        "write " + path);
  }

  private static ApplicationFailure systemdNotEdited(
      MemberHost host, SystemdUnit unit, java.util.Collection<String> flags) {
    String where =
        unit.environmentFile().isEmpty()
            ? "its unit " + unit.unit() + " reads no environment file"
            : "its unit " + unit.unit() + " sets " + flags + " on ExecStart's command line";
    return ApplicationFailure.newNonRetryableFailure(
        ("%s runs under systemd and %s; the runbook edits only the unit's environment file: move"
                + " those settings there (ETCD_* variables), or set %s by hand")
            .formatted(host.describe(), where, flags),
        "FlagsNotEditable");
  }

  /** A script on the member's host, with the rights its flags file needs. */
  private ExecResult exec(MemberHost host, String script) {
    if (ServiceSpec.SYSTEMD.equals(spec == null ? null : spec.kind())) {
      return SystemdHost.of(ssh, spec).runUnchecked(host, script);
    }
    return ssh.exec(host.target(), script, TIMEOUT);
  }

  /** A file the SSH user may not read (a systemd unit's environment file) is read as root. */
  private String read(MemberHost host, String path) {
    if (ServiceSpec.SYSTEMD.equals(spec == null ? null : spec.kind())) {
      return SystemdHost.of(ssh, spec).run(host, "cat " + quote(path), "read " + path).stdout();
    }
    return ssh.readFile(host.target(), path);
  }

  private List<String> envFile(MemberHost host, String path, String version, boolean apply) {
    String text = read(host, path);
    FlagEdits.Edited edited = FlagEdits.envFile(text, version, host.describe() + "'s " + path);
    if (apply && !edited.changes().isEmpty()) {
      writeKeeping(host, path, path + ".before-flags", edited.text());
    }
    return edited.changes();
  }

  private List<String> manifest(MemberHost host, String version, boolean apply) {
    StaticPodManifest manifest = new StaticPodManifest(ssh, spec);
    StaticPodManifest.Location location = manifest.locate(host);
    if (location == StaticPodManifest.Location.MISSING) return List.of();
    String path = manifest.path(host, location);
    String text = manifest.read(host, path);
    FlagEdits.Edited edited =
        FlagEdits.manifest(text, version, host.describe() + "'s manifest " + path);
    if (apply && !edited.changes().isEmpty()) manifest.replace(host, path, text, edited.text());
    return edited.changes();
  }

  /**
   * A renamed flag on the unit's ExecStart command line is refused by name: only the environment
   * file is edited. Names in the environment file are translated there.
   */
  private void refuseRenamedOnCommandLine(
      MemberHost host, SystemdUnit unit, ServiceManager service, String version) {
    MemberFlags flags = running.read(host, service);
    List<FlagTranslations.Flag> given =
        flags.args().stream()
            .filter(a -> a.startsWith("-"))
            .map(FlagTranslations.Flag::parse)
            .toList();
    FlagTranslations.ForTarget translated = FlagTranslations.forTarget(given, version);
    List<String> renamed = new ArrayList<>();
    for (int i = 0; i < given.size(); i++) {
      String flag = given.get(i).name();
      if (unit.commandLineSets(flag) && !translated.each().get(i).equals(List.of(given.get(i)))) {
        renamed.add(flag);
      }
    }
    if (renamed.isEmpty()) return;
    throw ApplicationFailure.newNonRetryableFailure(
        ("%s runs under systemd with %s on its unit's ExecStart, which etcd %s takes under another"
                + " name; the runbook edits only the unit's environment file: move them there or"
                + " rename them in the unit (docs/runbooks/upgrade-cluster.md lists the names), then"
                + " run it again")
            .formatted(host.describe(), renamed, version),
        "FlagsNotTranslatable");
  }

  private static void check(MemberHost host, ExecResult result, String what) {
    if (!result.ok()) {
      throw new SshCommandException(
          "cannot " + what + " on " + host.describe() + ": " + result.stderr().strip());
    }
  }
}
