package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.release.ReleaseStore;
import io.etcdrunbooks.activities.ssh.ExecResult;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.ssh.SshException;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.activities.tls.CertificateCheck;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.inventory.ServiceSpec;
import io.etcdrunbooks.workflows.activities.NewMemberActivities;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import io.temporal.failure.ApplicationFailure;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link NewMemberActivities} for the plain service manager (binaries under installDir, settings in
 * {@code serviceDir/etcd.env}), for systemd units (binaries under installDir, settings in the
 * unit's environment file) and for static pods (a manifest in kubelet's manifests directory). What
 * is not the member's own (TLS files, logger, quotas, probes) is copied from a running member's
 * settings or manifest, so the new member runs like its peers.
 */
public final class NewMemberActivitiesImpl implements NewMemberActivities {

  private static final Logger log = LoggerFactory.getLogger(NewMemberActivitiesImpl.class);
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);

  private final ClusterTargets targets;
  private final SshConnector ssh;
  private final ReleaseStore releases;
  private final BinaryInstaller binaries;
  private final NewSystemdMember systemd;

  public NewMemberActivitiesImpl(ClusterTargets targets, ReleaseStore releases) {
    this.targets = targets;
    this.ssh = targets.ssh();
    this.releases = releases;
    this.binaries = targets.binaries();
    this.systemd = new NewSystemdMember(ssh);
  }

  @Override
  public void checkHost(NewMemberRequest request) {
    on(
        request.cluster(),
        request.member(),
        "check the host",
        (cluster, host) -> {
          boolean plain = isPlain(cluster);
          boolean binaries = plain || isSystemd(cluster);
          if (binaries) binDir(request.version());
          String needs =
              plain
                  ? "sha256sum setsid"
                  : isSystemd(cluster) ? "sha256sum systemctl" : "base64 pgrep crictl";
          ExecResult result =
              ssh.exec(
                  host.target(),
                  "for c in "
                      + needs
                      + "; do command -v $c >/dev/null || { echo \"missing $c\"; exit 1; };"
                      + " done; echo ok",
                  COMMAND_TIMEOUT);
          if (!result.ok() || !result.stdout().contains("ok")) {
            throw ApplicationFailure.newNonRetryableFailure(
                "host of the new member "
                    + host.describe()
                    + " cannot run etcd the way"
                    + " this cluster does: "
                    + result.stdout().strip()
                    + " (it needs "
                    + needs
                    + ")",
                "HostNotUsable");
          }
          if (binaries) checkCertificates(cluster, host);
          else checkStaticPod(cluster, host, request.version());
          return null;
        });
  }

  /**
   * Prints one line per thing the join would fail on; run as the member's files are written (root
   * for systemd and static pods). The nearest existing ancestor of each directory must be a
   * writable directory; a port is in use when /proc/net/tcp or tcp6 lists it listening.
   */
  @Override
  public void checkPlacement(PlacementRequest request) {
    on(
        request.cluster(),
        request.member(),
        "check the new member's place",
        (cluster, host) -> {
          MemberSpec m = host.member();
          StringBuilder script = new StringBuilder(PLACEMENT_FUNCTIONS);
          creatable(script, "data dir", m.dataDir());
          if (isPlain(cluster)) creatable(script, "service dir", m.serviceDir());
          if (!ServiceSpec.STATIC_POD.equals(cluster.service().kind()))
            creatable(script, "install dir", m.installDir());
          if (isSystemd(cluster)
              && !SystemdUnit.read(ssh, host, cluster.service().effectiveUnit()).loaded())
            script.append(
                "[ -d /etc/systemd/system ] && [ -w /etc/systemd/system ] || echo %s\n"
                    .formatted(
                        quote(
                            "no systemd unit "
                                + cluster.service().effectiveUnit()
                                + " there, and /etc/systemd/system is not a writable directory to"
                                + " copy a peer's unit to")));
          if (ServiceSpec.STATIC_POD.equals(cluster.service().kind())) {
            StaticPodManifest manifests = new StaticPodManifest(ssh, cluster.service());
            script.append(
                "[ -d %s ] || echo %s\n"
                    .formatted(
                        quote(manifests.manifestsDir(host)),
                        quote(
                            "kubelet's manifests directory "
                                + manifests.manifestsDir(host)
                                + " is missing")));
            creatable(script, "stash dir", manifests.stashDir(host));
          }
          if (request.portsFree()) {
            for (String url : List.of(m.clientUrl(), m.peerUrl())) {
              int port = URI.create(url).getPort();
              if (port > 0)
                script.append(
                    "if listening %d; then echo %s; fi\n"
                        .formatted(
                            port,
                            quote(
                                "port %d of %s is in use there: another process listens on it"
                                    .formatted(port, url))));
            }
          }
          String found =
              runAsOwner(
                      cluster,
                      host,
                      script.append("exit 0\n").toString(),
                      "check the new member's place")
                  .stdout()
                  .strip();
          if (!found.isEmpty()) {
            throw ApplicationFailure.newNonRetryableFailure(
                host.describe() + " cannot take the new member: " + found.replace("\n", "; "),
                "HostNotUsable");
          }
          return null;
        });
  }

  private static final String PLACEMENT_FUNCTIONS =
      """
      creatable() {
        d=$1
        while [ ! -e "$d" ]; do d=$(dirname "$d"); done
        [ -d "$d" ] && [ -w "$d" ]
      }
      listening() {
        h=$(printf ':%04X' "$1")
        for f in /proc/net/tcp /proc/net/tcp6; do
          [ -r "$f" ] || continue
          awk -v h="$h" 'NR > 1 && $4 == "0A" && substr($2, length($2) - 4) == h { f = 1 }
            END { exit !f }' "$f" && return 0
        done
        return 1
      }
      """;

  private static void creatable(StringBuilder script, String what, String path) {
    if (path == null || path.isBlank()) return;
    script.append(
        "creatable %s || echo %s\n"
            .formatted(
                quote(path),
                quote(
                    "its %s %s cannot be created (the nearest existing path above it is not a"
                            .formatted(what, path)
                        + " writable directory)")));
  }

  /**
   * The new member copies a peer's settings, its certificate paths among them: the certificates at
   * those paths on the new host are what it will serve, and must cover its own addresses.
   */
  private void checkCertificates(ClusterSpec cluster, MemberHost host) {
    MemberEnv template = MemberEnv.parse(templateEnv(cluster, host));
    List<String> problems = new ArrayList<>();
    for (String setting : List.of("ETCD_CERT_FILE", "ETCD_PEER_CERT_FILE")) {
      String path = template.get(setting);
      if (path.isBlank()) continue;
      ExecResult read = ssh.exec(host.target(), "cat " + quote(path), COMMAND_TIMEOUT);
      if (!read.ok()) {
        problems.add(
            "%s: no certificate at %s (%s, as its peers have it): put the new member's own there"
                .formatted(host.describe(), path, setting));
        continue;
      }
      problems.addAll(certificateProblems(host, path, setting, read.stdout()));
    }
    if (!problems.isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure(
          String.join("; ", problems), "CertificateNotUsable");
    }
  }

  /** A static pod's TLS files are named by its manifest's flags; kubeadm has them root-owned. */
  private static final List<String> CERTIFICATE_FLAGS = List.of("--cert-file", "--peer-cert-file");

  private static final List<String> OTHER_TLS_FLAGS =
      List.of("--key-file", "--peer-key-file", "--trusted-ca-file", "--peer-trusted-ca-file");

  /**
   * Before the failed member is removed: the new static-pod member will run a running peer's
   * manifest, so every TLS file it names must be on the new node (its certificates covering the
   * node's names; keys only checked readable, never read), and the version's image must be pulled
   * there ({@code crictl pull}), as kubelet would have to.
   */
  private void checkStaticPod(ClusterSpec cluster, MemberHost host, String version) {
    StaticPodManifest manifests = new StaticPodManifest(ssh, cluster.service());
    MemberHost peer = runningPeer(cluster, host, manifests);
    String peerManifest = manifests.inPlacePath(peer);
    List<String> command;
    try {
      command = ManifestImage.commandOf(manifests.read(peer, peerManifest));
    } catch (IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          "cannot read the command of "
              + peer.describe()
              + "'s "
              + peerManifest
              + ": "
              + e.getMessage(),
          "ManifestNotEditable");
    }
    List<String> problems = new ArrayList<>();
    for (String flag : concat(CERTIFICATE_FLAGS, OTHER_TLS_FLAGS)) {
      String path = flagValue(command, flag);
      if (path == null || path.isBlank()) continue;
      boolean certificate = CERTIFICATE_FLAGS.contains(flag);
      ExecResult read =
          manifests.exec(
              host, certificate ? "cat " + quote(path) : "test -r " + quote(path), COMMAND_TIMEOUT);
      if (!read.ok()) {
        problems.add(
            "%s: no file at %s (%s in %s's manifest, which the new member copies): put the new node's own there (kubeadm join --control-plane makes them)"
                .formatted(host.describe(), path, flag, peer.member().name()));
      } else if (certificate) {
        problems.addAll(certificateProblems(host, path, flag, read.stdout()));
      }
    }
    if (!problems.isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure(
          String.join("; ", problems), "CertificateNotUsable");
    }
    log.info(
        "{}: {}",
        host.describe(),
        new ManifestImageInstaller(ssh, cluster.service()).stage(host, version, null));
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  /** The value of {@code --flag=value} or {@code --flag value} in a command, else null. */
  private static String flagValue(List<String> command, String flag) {
    for (int i = 0; i < command.size(); i++) {
      String arg = command.get(i);
      if (arg.startsWith(flag + "=")) return arg.substring(flag.length() + 1);
      if (arg.equals(flag) && i + 1 < command.size()) return command.get(i + 1);
    }
    return null;
  }

  /**
   * Problems of the PEM certificate at path: unreadable, or not covering the member's addresses.
   */
  private static List<String> certificateProblems(
      MemberHost host, String path, String setting, String pem) {
    try {
      X509Certificate leaf =
          (X509Certificate)
              CertificateFactory.getInstance("X.509")
                  .generateCertificate(
                      new ByteArrayInputStream(pem.getBytes(StandardCharsets.UTF_8)));
      return CertificateCheck.covers(
          host.member().name(),
          path + " on " + host.target().address(),
          leaf,
          List.of(
              URI.create(host.member().clientUrl()).getHost(),
              URI.create(host.member().peerUrl()).getHost()));
    } catch (CertificateException e) {
      return List.of(
          "%s: %s (%s) holds no readable certificate".formatted(host.describe(), path, setting));
    }
  }

  @Override
  public void prepare(PrepareRequest request) {
    on(
        request.cluster(),
        request.member(),
        "prepare the new member",
        (cluster, host) -> {
          ServiceManager service = targets.service(cluster);
          if (isPlain(cluster)) {
            preparePlain(cluster, host, service, request);
          } else if (isSystemd(cluster)) {
            prepareSystemd(cluster, host, service, request);
          } else {
            prepareStaticPod(cluster, host, service, request);
          }
          return null;
        });
  }

  private void preparePlain(
      ClusterSpec cluster, MemberHost host, ServiceManager service, PrepareRequest request) {
    Path binDir = binDir(request.version());
    if (runsTheNewMember(cluster, host, service)) return;
    run(
        host,
        "mkdir -p "
            + quote(host.member().dataDir())
            + " "
            + quote(host.member().serviceDir())
            + " && chmod 700 "
            + quote(host.member().dataDir()),
        "create the data and service directories");
    log.info(
        "{}: etcd {}: {}",
        host.describe(),
        request.version(),
        binaries.installAndSelect(host, request.version(), binDir));
    MemberEnv env =
        MemberEnv.parse(templateEnv(cluster, host))
            .forJoining(host.member(), request.initialCluster());
    writeAtomically(host, envFile(host), env.render());
    log.info(
        "{}: settings written to join the existing cluster as '{}'",
        host.describe(),
        host.member().name());
  }

  /**
   * True when the host already runs the new member (a retry, or a resumed runbook). Otherwise an
   * etcd still running there is the replaced member's (a forced replacement): it is stopped and its
   * data dir kept aside.
   */
  private boolean runsTheNewMember(ClusterSpec cluster, MemberHost host, ServiceManager service) {
    boolean ours = isOurs(cluster, host);
    if (ours && service.isRunning(host)) {
      log.info("{}: already prepared and running", host.describe());
      return true;
    }
    if (!ours) {
      if (service.isRunning(host)) service.stop(host);
      keepDataDirAside(cluster, host);
    }
    return false;
  }

  /**
   * A systemd member's host: the unit copied from a peer's unit file when the host has none,
   * binaries under installDir (where the unit runs them), the data dir owned by the unit's user,
   * and the peer's environment file made the new member's, at the path the unit reads.
   */
  private void prepareSystemd(
      ClusterSpec cluster, MemberHost host, ServiceManager service, PrepareRequest request) {
    Path binDir = binDir(request.version());
    if (runsTheNewMember(cluster, host, service)) return;
    SystemdUnit unit = systemd.unitFromPeer(cluster, host);
    systemd.createDataDir(cluster, host, unit);
    log.info(
        "{}: etcd {}: {}",
        host.describe(),
        request.version(),
        targets.installer(cluster).installAndSelect(host, request.version(), binDir));
    MemberEnv env =
        MemberEnv.parse(templateEnv(cluster, host))
            .forJoining(host.member(), request.initialCluster());
    String envFile = systemd.envFileOf(cluster, host).orElseThrow();
    systemd.write(cluster, host, envFile, env.render());
    log.info(
        "{}: {} written to join the existing cluster as '{}'",
        host.describe(),
        envFile,
        host.member().name());
  }

  /**
   * The new member's manifest, made from a running peer's, goes to the stash dir (kubelet does not
   * run it there); {@link #start} moves it into kubelet's manifests directory. A manifest already
   * in place that is not the new member's (its host reused) is stopped first, and its data dir kept
   * aside.
   */
  private void prepareStaticPod(
      ClusterSpec cluster, MemberHost host, ServiceManager service, PrepareRequest request) {
    StaticPodManifest manifests = new StaticPodManifest(ssh, cluster.service());
    boolean ours = isOurs(cluster, host);
    if (ours && service.isRunning(host)) {
      log.info("{}: already prepared and running", host.describe());
      return;
    }
    if (!ours) {
      if (manifests.locate(host) == StaticPodManifest.Location.IN_PLACE) service.stop(host);
      keepDataDirAside(cluster, host);
    }
    MemberHost peer = runningPeer(cluster, host, manifests);
    String template = manifests.read(peer, manifests.inPlacePath(peer));
    String image = cluster.service().effectiveImage().replace("{version}", request.version());
    String manifest;
    try {
      manifest =
          JoiningManifest.from(
              template, peer.member(), host.member(), request.initialCluster(), image);
    } catch (IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailure(
          "cannot make the new member's manifest from "
              + peer.describe()
              + "'s "
              + manifests.inPlacePath(peer)
              + ": "
              + e.getMessage(),
          "ManifestNotEditable");
    }
    manifests.write(host, manifests.stashedPath(host), manifest);
    log.info(
        "{}: manifest made from {}'s, kept at {} until start",
        host.describe(),
        peer.member().name(),
        manifests.stashedPath(host));
  }

  /**
   * The first other inventory member whose manifest is in place: the peer the new member's manifest
   * is made from.
   */
  private MemberHost runningPeer(
      ClusterSpec cluster, MemberHost newMember, StaticPodManifest manifests) {
    for (MemberSpec m : cluster.members()) {
      if (m.name().equals(newMember.member().name())) continue;
      MemberHost peer = MemberHost.of(cluster, m);
      try {
        if (manifests.locate(peer) == StaticPodManifest.Location.IN_PLACE) return peer;
      } catch (SshException e) {
        log.info(
            "{}: its manifest cannot be read ({}); trying the next member",
            peer.describe(),
            e.getMessage());
      }
    }
    throw ApplicationFailure.newNonRetryableFailure(
        "no member of cluster '"
            + cluster.name()
            + "' has its etcd manifest in place"
            + " to make the new member's from",
        "NoPeerManifest");
  }

  /**
   * Whether what is on the host was written for the new member (a retry or a resumed runbook finds
   * its own work).
   */
  private boolean isOurs(ClusterSpec cluster, MemberHost host) {
    if (isSystemd(cluster)) {
      return systemd
          .envFileOf(cluster, host)
          .map(path -> MemberEnv.parse(systemd.readIfExists(cluster, host, path)).get("ETCD_NAME"))
          .filter(host.member().name()::equals)
          .isPresent();
    }
    if (isPlain(cluster))
      return host.member()
          .name()
          .equals(MemberEnv.parse(readIfExists(host, envFile(host))).get("ETCD_NAME"));
    StaticPodManifest manifests = new StaticPodManifest(ssh, cluster.service());
    StaticPodManifest.Location location = manifests.locate(host);
    if (location == StaticPodManifest.Location.MISSING) return false;
    return manifests
        .read(host, manifests.path(host, location))
        .contains("--name=" + host.member().name() + "\n");
  }

  private static boolean isPlain(ClusterSpec cluster) {
    return ServiceSpec.PLAIN.equals(cluster.service().kind());
  }

  private static boolean isSystemd(ClusterSpec cluster) {
    return ServiceSpec.SYSTEMD.equals(cluster.service().kind());
  }

  @Override
  public void start(NewMemberRequest request) {
    on(
        request.cluster(),
        request.member(),
        "start etcd",
        (cluster, host) -> {
          targets.service(cluster).start(host);
          return null;
        });
  }

  @Override
  public void discard(NewMemberRequest request) {
    on(
        request.cluster(),
        request.member(),
        "discard the new member",
        (cluster, host) -> {
          ServiceManager service = targets.service(cluster);
          if (!isOurs(cluster, host)) {
            log.info("{}: nothing of the new member to discard", host.describe());
            return null;
          }
          if (!service.isStopped(host)) service.stop(host);
          keepDataDirAside(cluster, host);
          return null;
        });
  }

  @Override
  public String logTail(NewMemberRequest request) {
    return on(
        request.cluster(),
        request.member(),
        "read the etcd log",
        (cluster, host) -> targets.service(cluster).logTail(host, 20));
  }

  /** The etcd.env of the first inventory member (other than the new one) whose file can be read. */
  private String templateEnv(ClusterSpec cluster, MemberHost newMember) {
    for (MemberSpec m : cluster.members()) {
      if (m.name().equals(newMember.member().name())) continue;
      MemberHost peer = MemberHost.of(cluster, m);
      try {
        String text =
            isSystemd(cluster)
                ? systemd
                    .envFileOf(cluster, peer)
                    .map(p -> systemd.readIfExists(cluster, peer, p))
                    .orElse("")
                : readIfExists(peer, envFile(peer));
        if (!text.isBlank()) return text;
      } catch (SshException e) {
        log.info(
            "{}: its settings cannot be read to copy ({}); trying the next member",
            peer.describe(),
            e.getMessage());
      }
    }
    return "";
  }

  /**
   * Renames a non-empty data dir to {@code <dataDir>.replaced-<time>}: never deleted, never reused
   * by mistake.
   */
  private void keepDataDirAside(ClusterSpec cluster, MemberHost host) {
    String dir = quote(host.member().dataDir());
    String out =
        runAsOwner(
                cluster,
                host,
                "if [ -d "
                    + dir
                    + " ] && [ -n \"$(ls -A "
                    + dir
                    + ")\" ]; then t="
                    + dir
                    + ".replaced-$(date -u +%Y%m%dT%H%M%SZ);"
                    + " mv -T "
                    + dir
                    + " \"$t\" && echo \"$t\"; fi",
                "keep the old data dir aside")
            .stdout()
            .strip();
    if (!out.isEmpty()) log.info("{}: old data dir kept as {}", host.describe(), out);
  }

  private static String envFile(MemberHost host) {
    return host.member().serviceDir() + "/" + PlainProcessServiceManager.ENV_FILE;
  }

  private String readIfExists(MemberHost host, String path) {
    return run(
            host, "if [ -f " + quote(path) + " ]; then cat " + quote(path) + "; fi", "read " + path)
        .stdout();
  }

  private void writeAtomically(MemberHost host, String path, String content) {
    String tmp = path + ".tmp";
    ssh.writeFile(host.target(), tmp, content);
    run(
        host,
        "chmod 600 " + quote(tmp) + " && mv -f " + quote(tmp) + " " + quote(path),
        "put " + path + " in place");
  }

  /** Runs a script with the rights the member's files need: root's for a systemd unit. */
  private ExecResult runAsOwner(ClusterSpec cluster, MemberHost host, String script, String what) {
    return isSystemd(cluster)
        ? systemd.root(cluster).run(host, script, what)
        : run(host, script, what);
  }

  private ExecResult run(MemberHost host, String script, String what) {
    return ssh.exec(host.target(), script, COMMAND_TIMEOUT)
        .orThrow(host.target(), what + " for " + host.describe());
  }

  private Path binDir(String version) {
    return HostFailures.binDir(releases, version);
  }

  private interface Action<T> {
    T apply(ClusterSpec cluster, MemberHost host);
  }

  private <T> T on(String clusterName, MemberPlacement placement, String what, Action<T> action) {
    ClusterSpec cluster = targets.cluster(clusterName);
    String kind = cluster.service() == null ? null : cluster.service().kind();
    if (kind == null) {
      throw ApplicationFailure.newNonRetryableFailure(
          "cluster '" + clusterName + "' names no service kind (plain, systemd or static-pod)",
          "ServiceKindNotSupported");
    }
    MemberSpec spec =
        new MemberSpec(
            placement.name(),
            placement.host(),
            placement.sshPort(),
            placement.clientUrl(),
            placement.peerUrl(),
            placement.dataDir(),
            placement.installDir(),
            placement.serviceDir());
    MemberHost host = MemberHost.of(cluster, spec);
    return HostFailures.translate(host, what + " (new member)", () -> action.apply(cluster, host));
  }
}
