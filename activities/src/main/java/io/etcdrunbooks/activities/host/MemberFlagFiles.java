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

/**
 * Where a member's flags live, translated there for the version it is about to run: a plain
 * member's {@code etcd.env}, a static pod's manifest (in place or stashed). A systemd unit is not
 * edited: a renamed flag in it is refused by name. The previous file is kept beside it.
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
    if (ServiceSpec.SYSTEMD.equals(kind)) return refuseRenamedInUnit(host, service, version);
    return envFile(host, version, apply);
  }

  /**
   * Sets {@code flags} (name to value) where the member's flags live; the file as it was kept as
   * {@code <file>.before-<changeId>} (a static pod's in its stash dir, which kubelet does not read)
   * the first time. What changes; written only when {@code apply}. A systemd member fails,
   * non-retryably: its unit is not edited.
   */
  List<String> set(MemberHost host, Map<String, String> flags, String changeId, boolean apply) {
    String kind = spec == null ? ServiceSpec.PLAIN : spec.kind();
    if (ServiceSpec.SYSTEMD.equals(kind)) throw systemdNotEdited(host, flags.keySet());
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
    String kind = spec == null ? ServiceSpec.PLAIN : spec.kind();
    String path;
    String keep;
    if (ServiceSpec.STATIC_POD.equals(kind)) {
      StaticPodManifest manifest = new StaticPodManifest(ssh, spec);
      path = manifest.path(host, present(manifest, host));
      keep = manifest.stashedPath(host) + ".before-" + changeId;
    } else {
      path = envPath(host);
      keep = path + ".before-" + changeId;
    }
    String dir = path.substring(0, path.lastIndexOf('/'));
    String tmp = dir + "/." + path.substring(path.lastIndexOf('/') + 1) + ".etcd-runbooks.tmp";
    ExecResult result =
        ssh.exec(
            host.target(),
            ("set -e\nif [ -e %s ]; then cp -p %s %s; mv -f %s %s; echo back; else echo none;"
                    + " fi\n")
                .formatted(quote(keep), quote(keep), quote(tmp), quote(tmp), quote(path)),
            TIMEOUT);
    check(host, result, "put " + keep + " back");
    return result.stdout().strip().equals("back");
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
        ssh.exec(
            host.target(),
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
                    quote(path)),
            TIMEOUT),
        "write " + path);
  }

  private static ApplicationFailure systemdNotEdited(
      MemberHost host, java.util.Collection<String> flags) {
    return ApplicationFailure.newNonRetryableFailure(
        ("%s runs under systemd; the runbook does not edit systemd units yet: set %s in the unit's"
                + " environment file by hand, or run the member as a plain process or static pod")
            .formatted(host.describe(), flags),
        "FlagsNotEditable");
  }

  private List<String> envFile(MemberHost host, String version, boolean apply) {
    String path = envPath(host);
    String text = ssh.readFile(host.target(), path);
    FlagEdits.Edited edited = FlagEdits.envFile(text, version);
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
    FlagEdits.Edited edited = FlagEdits.manifest(text, version);
    if (apply && !edited.changes().isEmpty()) manifest.replace(host, path, text, edited.text());
    return edited.changes();
  }

  private List<String> refuseRenamedInUnit(
      MemberHost host, ServiceManager service, String version) {
    MemberFlags flags = running.read(host, service);
    List<String> renamed = new ArrayList<>();
    for (String flag : flags.flagNames()) {
      if (FlagTranslations.translate(flag, flags.value(flag).orElse(null), version).isPresent()) {
        renamed.add(flag);
      }
    }
    flags.env().keySet().stream()
        .filter(
            v ->
                FlagTranslations.translate(FlagTranslations.flag(v), flags.env().get(v), version)
                    .isPresent())
        .forEach(renamed::add);
    if (renamed.isEmpty()) return List.of();
    throw ApplicationFailure.newNonRetryableFailure(
        ("%s runs under systemd with %s, which etcd %s takes under another name; the runbook does"
                + " not edit systemd units: rename them in the unit or its environment file"
                + " (docs/runbooks/upgrade-cluster.md lists the names), then run it again")
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
