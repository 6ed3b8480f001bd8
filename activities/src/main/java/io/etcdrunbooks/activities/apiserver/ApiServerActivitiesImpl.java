package io.etcdrunbooks.activities.apiserver;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.host.FlagSettings;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.ssh.SshException;
import io.etcdrunbooks.activities.ssh.SshTarget;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.activities.support.WaitDeadline;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.inventory.ControlPlaneHost;
import io.etcdrunbooks.workflows.activities.ApiServerActivities;
import io.etcdrunbooks.workflows.model.ClusterRef;
import io.temporal.failure.ApplicationFailure;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** {@link ApiServerActivities} over SSH (the manifest) and HTTP (the health endpoint). */
public final class ApiServerActivitiesImpl implements ApiServerActivities {

  private static final Logger log = LoggerFactory.getLogger(ApiServerActivitiesImpl.class);
  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);
  private static final long POLL_MILLIS = 250;

  private final ClusterTargets targets;
  private final SshConnector ssh;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  public ApiServerActivitiesImpl(ClusterTargets targets) {
    this.targets = targets;
    this.ssh = targets.ssh();
  }

  @Override
  public boolean setEtcdServers(SetEtcdServersRequest request) {
    Located cp = locate(request.cluster(), request.host());
    String where = cp.describe();
    // a stopped apiserver's manifest (moved aside) is edited where it lies, to start on the new set
    String path = presentManifest(cp);
    String manifest = read(cp, path);
    List<String> current;
    String rewritten;
    try {
      current = EtcdServersFlag.read(manifest, where);
      rewritten = EtcdServersFlag.rewrite(manifest, request.etcdServers(), where);
    } catch (IllegalStateException | IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), "ManifestNotEditable");
    }
    if (current.equals(request.etcdServers())) {
      log.info("{}: --etcd-servers already {}", where, current);
      return false;
    }
    String tmp = hidden(cp.host().manifestPath(), "etcd-runbooks.tmp");
    String previous = hidden(cp.host().manifestPath(), "etcd-runbooks.previous");
    write(cp, previous, manifest);
    write(cp, tmp, rewritten);
    exec(cp, "mv -f " + quote(tmp) + " " + quote(path), "replace the manifest");
    log.info(
        "{}: --etcd-servers {} -> {} in {} (previous manifest kept as {})",
        where,
        current,
        request.etcdServers(),
        path,
        previous);
    return true;
  }

  @Override
  public boolean setEtcdClientTls(SetEtcdClientTlsRequest request) {
    Located cp = locate(request.cluster(), request.host());
    String path = cp.host().manifestPath();
    String manifest = read(cp, path);
    Map<String, String> flags = new LinkedHashMap<>();
    if (request.etcdServers() != null) {
      flags.put("--etcd-servers", String.join(",", request.etcdServers()));
    }
    if (request.caFile() != null) flags.put("--etcd-cafile", request.caFile());
    if (request.certFile() != null) flags.put("--etcd-certfile", request.certFile());
    if (request.keyFile() != null) flags.put("--etcd-keyfile", request.keyFile());
    FlagSettings.Edited edited;
    try {
      if (request.etcdServers() != null) {
        EtcdServersFlag.rewrite(manifest, request.etcdServers(), cp.describe()); // checks the URLs
      }
      edited = FlagSettings.manifest(manifest, flags);
    } catch (IllegalStateException | IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), "ManifestNotEditable");
    }
    if (edited.changes().isEmpty()) {
      log.info("{}: etcd client TLS already {}", cp.describe(), flags.values());
      return false;
    }
    String tmp = hidden(path, "etcd-runbooks.tmp");
    write(cp, hidden(path, "etcd-runbooks.previous"), manifest);
    write(cp, tmp, edited.text());
    exec(cp, "mv -f " + quote(tmp) + " " + quote(path), "replace the manifest");
    log.info("{}: {}", cp.describe(), edited.changes());
    return true;
  }

  @Override
  public boolean replaceEtcdServer(ReplaceEtcdServerRequest request) {
    Located cp = locate(request.cluster(), request.host());
    List<String> current;
    try {
      current = EtcdServersFlag.read(read(cp, cp.host().manifestPath()), cp.describe());
    } catch (IllegalStateException e) {
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), "ManifestNotEditable");
    }
    if (!current.contains(request.oldUrl())) {
      log.info(
          "{}: --etcd-servers {} does not list {}; nothing to replace",
          cp.describe(),
          current,
          request.oldUrl());
      return false;
    }
    List<String> servers = new ArrayList<>();
    for (String server : current) {
      String next = server.equals(request.oldUrl()) ? request.newUrl() : server;
      if (!servers.contains(next)) servers.add(next);
    }
    return setEtcdServers(new SetEtcdServersRequest(request.cluster(), request.host(), servers));
  }

  @Override
  public String storageBackend(ControlPlaneRef ref) {
    Located cp = locate(ref.cluster(), ref.host());
    String path = presentManifest(cp);
    try {
      return StorageBackendFlag.read(read(cp, path), cp.describe());
    } catch (IllegalStateException e) {
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), "ManifestNotEditable");
    }
  }

  @Override
  public String etcdPrefix(ControlPlaneRef ref) {
    Located cp = locate(ref.cluster(), ref.host());
    String path = presentManifest(cp);
    try {
      return EtcdPrefixFlag.read(read(cp, path), cp.describe());
    } catch (IllegalStateException e) {
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), "ManifestNotEditable");
    }
  }

  @Override
  public boolean setStorageBackend(SetStorageBackendRequest request) {
    Located cp = locate(request.cluster(), request.host());
    String path = presentManifest(cp);
    String manifest = read(cp, path);
    String current;
    String rewritten;
    try {
      current = StorageBackendFlag.read(manifest, cp.describe());
      rewritten = StorageBackendFlag.rewrite(manifest, request.backend(), cp.describe());
    } catch (IllegalStateException | IllegalArgumentException e) {
      throw ApplicationFailure.newNonRetryableFailure(e.getMessage(), "ManifestNotEditable");
    }
    if (current.equals(request.backend())) {
      log.info("{}: --storage-backend already {}", cp.describe(), current);
      return false;
    }
    String tmp = hidden(cp.host().manifestPath(), "etcd-runbooks.tmp");
    write(cp, hidden(cp.host().manifestPath(), "etcd-runbooks.previous"), manifest);
    write(cp, tmp, rewritten);
    exec(cp, "mv -f " + quote(tmp) + " " + quote(path), "replace the manifest");
    log.info(
        "{}: --storage-backend {} -> {} in {}", cp.describe(), current, request.backend(), path);
    return true;
  }

  /**
   * The manifest kubelet runs, or the copy {@link #stopApiServer} moved aside when the apiserver is
   * stopped; fails when neither is there.
   */
  private String presentManifest(Located cp) {
    String path = cp.host().manifestPath();
    String stopped = hidden(path, "etcd-runbooks.stopped");
    String out =
        execOut(
            cp,
            "if [ -f "
                + quote(path)
                + " ]; then echo live; elif [ -f "
                + quote(stopped)
                + " ]; then echo stopped; else echo missing; fi",
            "look for the manifest");
    if (out.equals("missing")) throw manifestMissing(cp, path, stopped);
    return out.equals("live") ? path : stopped;
  }

  @Override
  public List<String> controlPlaneHosts(ClusterRef cluster) {
    return targets.cluster(cluster.cluster()).controlPlane().stream()
        .map(ControlPlaneHost::name)
        .toList();
  }

  @Override
  public void restoreManifest(ControlPlaneRef ref) {
    Located cp = locate(ref.cluster(), ref.host());
    String path = cp.host().manifestPath();
    String previous = hidden(path, "etcd-runbooks.previous");
    exec(
        cp,
        "if [ -f "
            + quote(previous)
            + " ]; then mv -f "
            + quote(previous)
            + " "
            + quote(path)
            + "; fi",
        "put the previous manifest back");
    log.info("{}: previous manifest restored (if one was kept)", cp.describe());
  }

  @Override
  public boolean stopApiServer(ControlPlaneRef ref) {
    Located cp = locate(ref.cluster(), ref.host());
    String path = cp.host().manifestPath();
    String stopped = hidden(path, "etcd-runbooks.stopped");
    String out =
        execOut(
            cp,
            "if [ -f "
                + quote(path)
                + " ]; then mv -f "
                + quote(path)
                + " "
                + quote(stopped)
                + " && echo moved; elif [ -f "
                + quote(stopped)
                + " ]; then echo already; else echo missing; fi",
            "move the manifest aside");
    if (out.equals("missing")) throw manifestMissing(cp, path, stopped);
    log.info(
        "{}: stopped (manifest {} {})",
        cp.describe(),
        out.equals("moved") ? "moved to" : "already at",
        stopped);
    return out.equals("moved");
  }

  @Override
  public boolean startApiServer(ControlPlaneRef ref) {
    Located cp = locate(ref.cluster(), ref.host());
    String path = cp.host().manifestPath();
    String stopped = hidden(path, "etcd-runbooks.stopped");
    // a manifest someone put in place meanwhile wins; the stopped copy then stays for them to look
    // at
    String out =
        execOut(
            cp,
            "if [ -f "
                + quote(stopped)
                + " ] && [ ! -f "
                + quote(path)
                + " ]; then mv "
                + quote(stopped)
                + " "
                + quote(path)
                + " && echo moved; else echo nothing; fi",
            "put the manifest back");
    log.info(
        "{}: {}", cp.describe(), out.equals("moved") ? "manifest put back" : "nothing to put back");
    return out.equals("moved");
  }

  /** The static pods restarted after a restore, found beside the kube-apiserver's manifest. */
  static final List<String> CONTROLLERS =
      List.of("kube-controller-manager.yaml", "kube-scheduler.yaml");

  @Override
  public List<String> moveControllersOut(ControlPlaneRef ref) {
    Located cp = locate(ref.cluster(), ref.host());
    StringBuilder script = new StringBuilder();
    for (String path : controllerManifests(cp)) {
      String out = hidden(path, "etcd-runbooks.restarting");
      script.append(
          "if [ -f %1$s ]; then mv -f %1$s %2$s && echo %1$s; elif [ -f %2$s ]; then echo %1$s; fi\n"
              .formatted(quote(path), quote(out)));
    }
    List<String> moved =
        lines(execOut(cp, script.toString(), "move the controllers' manifests out"));
    log.info("{}: controllers' manifests out of kubelet's directory: {}", cp.describe(), moved);
    return moved;
  }

  @Override
  public List<String> putControllersBack(ControlPlaneRef ref) {
    Located cp = locate(ref.cluster(), ref.host());
    StringBuilder script = new StringBuilder();
    for (String path : controllerManifests(cp)) {
      String out = hidden(path, "etcd-runbooks.restarting");
      // a manifest someone put in place meanwhile wins; the moved copy then stays for them
      script.append(
          "if [ -f %2$s ] && [ ! -f %1$s ]; then mv %2$s %1$s && echo %1$s; fi\n"
              .formatted(quote(path), quote(out)));
    }
    List<String> back =
        lines(execOut(cp, script.toString(), "put the controllers' manifests back"));
    log.info("{}: controllers' manifests put back: {}", cp.describe(), back);
    return back;
  }

  private static List<String> controllerManifests(Located cp) {
    String apiServer = cp.host().manifestPath();
    String dir = apiServer.substring(0, apiServer.lastIndexOf('/') + 1);
    return CONTROLLERS.stream().map(name -> dir + name).toList();
  }

  private static List<String> lines(String out) {
    return out.isBlank() ? List.of() : List.of(out.strip().split("\n"));
  }

  @Override
  public void awaitStopped(AwaitApiServerRequest request) {
    Located cp = locate(request.cluster(), request.host());
    poll(
        cp,
        request.timeoutSeconds(),
        false,
        "still answers 200 at "
            + cp.host().healthUrl()
            + " although its manifest was moved"
            + " aside; check kubelet on that host",
        "ApiServerStillRunning");
  }

  @Override
  public void awaitHealthy(AwaitApiServerRequest request) {
    Located cp = locate(request.cluster(), request.host());
    poll(
        cp,
        request.timeoutSeconds(),
        true,
        "is not healthy at " + cp.host().healthUrl(),
        "ApiServerUnhealthy");
  }

  /**
   * Polls the health endpoint until it answers 200 (healthy) or does not (not healthy), bounded.
   */
  private void poll(Located cp, int timeoutSeconds, boolean healthy, String failure, String type) {
    WaitDeadline deadline = WaitDeadline.afterSeconds(Math.max(1, timeoutSeconds));
    String last = "no answer yet";
    while (true) {
      boolean ok;
      try {
        HttpResponse<String> answer =
            http.send(
                HttpRequest.newBuilder(URI.create(cp.host().healthUrl()))
                    .timeout(Duration.ofSeconds(2))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        ok = answer.statusCode() == 200;
        last = "HTTP " + answer.statusCode() + " " + answer.body().strip();
      } catch (IOException e) {
        ok = false;
        last = e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for " + cp.describe(), e);
      }
      if (ok == healthy) return;
      if (deadline.passed()) {
        throw ApplicationFailure.newNonRetryableFailure(
            cp.describe()
                + " "
                + failure
                + " after "
                + timeoutSeconds
                + " s; last"
                + " answer: "
                + last
                + ". Next: check the kube-apiserver container's log on that host",
            type);
      }
      Heartbeats.beat(cp.describe() + ": " + last);
      Heartbeats.pause(POLL_MILLIS);
    }
  }

  private static ApplicationFailure manifestMissing(Located cp, String path, String stopped) {
    return ApplicationFailure.newNonRetryableFailure(
        cp.describe()
            + ": no manifest at "
            + path
            + " and no stopped copy at "
            + stopped
            + "; is manifestPath right in the inventory?",
        "ManifestMissing");
  }

  /**
   * A file beside {@code path} whose name starts with a dot: kubelet ignores hidden files in its
   * manifest directory.
   */
  static String hidden(String path, String suffix) {
    int slash = path.lastIndexOf('/');
    return path.substring(0, slash + 1) + "." + path.substring(slash + 1) + "." + suffix;
  }

  private String read(Located cp, String path) {
    try {
      return ssh.readFile(cp.target(), path);
    } catch (SshException e) {
      throw ApplicationFailure.newFailure(
          cp.describe() + ": cannot read " + path + ": " + e.getMessage(), "HostCommandFailed");
    }
  }

  private void write(Located cp, String path, String content) {
    try {
      ssh.writeFile(cp.target(), path, content);
    } catch (SshException e) {
      throw ApplicationFailure.newFailure(
          cp.describe() + ": cannot write " + path + ": " + e.getMessage(), "HostCommandFailed");
    }
  }

  private String execOut(Located cp, String command, String what) {
    var result = ssh.exec(cp.target(), command, COMMAND_TIMEOUT);
    if (!result.ok()) {
      throw ApplicationFailure.newFailure(
          cp.describe()
              + ": cannot "
              + what
              + " (exit "
              + result.exitCode()
              + "): "
              + result.stderr().strip(),
          "HostCommandFailed");
    }
    return result.stdout().strip();
  }

  private void exec(Located cp, String command, String what) {
    var result = ssh.exec(cp.target(), command, COMMAND_TIMEOUT);
    if (!result.ok()) {
      throw ApplicationFailure.newFailure(
          cp.describe()
              + ": cannot "
              + what
              + " (exit "
              + result.exitCode()
              + "): "
              + result.stderr().strip(),
          "HostCommandFailed");
    }
  }

  private Located locate(String clusterName, String hostName) {
    ClusterSpec cluster = targets.cluster(clusterName);
    ControlPlaneHost host =
        cluster.controlPlane().stream()
            .filter(h -> h.name().equals(hostName))
            .findFirst()
            .orElseThrow(
                () ->
                    ApplicationFailure.newNonRetryableFailure(
                        "cluster '"
                            + clusterName
                            + "' has no control-plane host '"
                            + hostName
                            + "'; it has "
                            + cluster.controlPlane().stream().map(ControlPlaneHost::name).toList(),
                        "UnknownControlPlaneHost"));
    return new Located(clusterName, host, SshTarget.of(cluster, host));
  }

  private record Located(String cluster, ControlPlaneHost host, SshTarget target) {
    String describe() {
      return "kube-apiserver on "
          + host.name()
          + " ("
          + target.address()
          + ") of cluster '"
          + cluster
          + "'";
    }
  }
}
