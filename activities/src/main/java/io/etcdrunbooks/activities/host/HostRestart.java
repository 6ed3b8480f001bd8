package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.ssh.ExecResult;
import io.etcdrunbooks.activities.ssh.SshCommandException;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.support.Heartbeats;
import io.etcdrunbooks.inventory.ServiceSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A member's restart (stop, flags, select, start) as one command on its host, detached from the SSH
 * session that starts it: under {@code systemd-run} as a transient unit of its own on a systemd
 * member's host, else in a session of its own ({@code setsid}). A worker that dies mid-restart
 * leaves the member started again by its host, not down until another worker takes the step over.
 *
 * <p>The command writes its progress to a state file on the host, under the restart's token (one
 * per runbook step, the same on every attempt of it): a retry reads it first and, when the command
 * was its own, waits for it or takes its outcome instead of restarting the member again.
 */
final class HostRestart {

  private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(30);

  /** How long one look at the state waits on the host for the command's result. */
  private static final int POLLS_PER_LOOK = 20;

  /** Longer than any of the command's own bounds (a stop's SIGTERM wait, kubelet's start). */
  private static final Duration COMMAND_BOUND = Duration.ofMinutes(10);

  /** The command's steps, in order; each one's time goes to the state file. */
  static final List<String> STEPS = List.of("stop", V2StoreCheck.STEP, "flags", "select", "start");

  private final SshConnector ssh;
  private final ServiceSpec spec;

  HostRestart(SshConnector ssh, ServiceSpec spec) {
    this.ssh = ssh;
    this.spec = spec;
  }

  /** What the host's command did. */
  record Done(List<String> steps, List<String> flagChanges, long downSinceNanos) {}

  /**
   * The state file's lines ({@code key=value}) and what the host said besides: whether the command
   * still runs and the host's clock.
   */
  record State(Map<String, String> values, List<String> changes, boolean alive, long hostNow) {

    static final State NONE = new State(Map.of(), List.of(), false, 0);

    String token() {
      return values.getOrDefault("token", "");
    }

    Optional<String> result() {
      return Optional.ofNullable(values.get("result"));
    }

    /** Under way: started, no result yet, its process still there. */
    boolean running() {
      return result().isEmpty() && alive;
    }

    boolean done() {
      return result().filter("done"::equals).isPresent();
    }

    String failedStep() {
      return values.getOrDefault("failed", "");
    }

    /**
     * How long the member was down before its start, on the host's clock: from its stop until its
     * start when the command got that far, else until now. The member may have been ready long
     * before a retry reads this; the time from its start until ready is not known, and is counted
     * from this read on.
     */
    long downBeforeStartMillis() {
      String stopped = values.get("stopped");
      if (stopped == null) return 0;
      long until = values.containsKey("started") ? Long.parseLong(values.get("started")) : hostNow;
      return Math.max(0, until - Long.parseLong(stopped));
    }

    List<String> steps(String version) {
      List<String> steps = new ArrayList<>();
      for (String step : STEPS) {
        String millis = values.get(step);
        if (millis != null)
          steps.add((step.equals("select") ? "select " + version : step) + " " + millis + " ms");
      }
      return steps;
    }

    static State parse(String out) {
      Map<String, String> values = new LinkedHashMap<>();
      List<String> changes = new ArrayList<>();
      boolean alive = false;
      long now = 0;
      for (String line : out.split("\n")) {
        int eq = line.indexOf('=');
        if (eq <= 0) continue;
        String key = line.substring(0, eq);
        String value = line.substring(eq + 1);
        switch (key) {
          case "alive" -> alive = value.equals("yes");
          case "now" -> now = value.strip().matches("\\d+") ? Long.parseLong(value.strip()) : 0;
          case "change" -> changes.add(value);
          default -> values.put(key, value.strip());
        }
      }
      return new State(values, changes, alive, now);
    }
  }

  /**
   * Restarts the member on the version through the host's command, or takes the outcome of the one
   * an earlier attempt of the same step ({@code token}) started.
   *
   * @param runsVersion whether the member already runs the version (nothing to do)
   * @param beforeStop runs once the restart is prepared, before the member stops; may throw
   * @return empty when the member already ran the version
   */
  Optional<Done> restart(
      MemberHost host,
      ServiceManager service,
      BinaryInstaller binaries,
      String version,
      Path binDir,
      String token,
      java.util.function.BooleanSupplier runsVersion,
      Runnable beforeStop,
      java.util.function.Function<String, Path> releaseBinDir) {
    State earlier = read(host);
    if (earlier.token().equals(token)) {
      State last = earlier.running() ? awaitResult(host, token) : earlier;
      if (last.done()) {
        return Optional.of(
            new Done(
                withEarlier(last.steps(version)),
                last.changes(),
                System.nanoTime() - last.downBeforeStartMillis() * 1_000_000));
      }
      if (last.failedStep().equals("start") || last.failedStep().equals(V2StoreCheck.STEP))
        throw failed(host, last, version);
      // failed before its start or ended without a result (the host rebooted): the member's own
      // state decides below, as on a first attempt
    } else if (earlier.running()) {
      awaitResult(host, earlier.token()); // another restart of the member: it ends first
    }
    if (runsVersion.getAsBoolean()) return Optional.empty();
    RestartPlan plan =
        RestartPlan.prepare(ssh, spec, host, service, binaries, version, binDir, releaseBinDir);
    long downSince;
    try {
      beforeStop.run();
      downSince = System.nanoTime();
      launch(host, token, script(host, service, plan, token, version));
    } catch (RuntimeException e) {
      if (!plan.cleanupScript().isEmpty()) run(host, plan.cleanupScript(), "clean up");
      throw e;
    }
    State last = awaitResult(host, token);
    if (!last.done()) throw failed(host, last, version);
    return Optional.of(new Done(last.steps(version), plan.flagChanges(), downSince));
  }

  /** Waits for a restart command still running on the host, whoever launched it. */
  boolean settle(MemberHost host) {
    State now = read(host);
    if (!now.running()) return false;
    awaitResult(host, now.token());
    return true;
  }

  private static List<String> withEarlier(List<String> steps) {
    List<String> all = new ArrayList<>(steps);
    all.add("(on the host, started by an earlier attempt)");
    return all;
  }

  private RuntimeException failed(MemberHost host, State state, String version) {
    String step = state.failedStep().isEmpty() ? "?" : state.failedStep();
    if (step.equals(V2StoreCheck.STEP)) {
      return io.temporal.failure.ApplicationFailure.newNonRetryableFailure(
          V2StoreCheck.refusal(host, version, logTail(host)), V2StoreCheck.FAILURE_TYPE);
    }
    String message =
        "the restart command on the host "
            + (state.result().isEmpty()
                ? "ended without finishing (the host restarted?)"
                : "failed at its step '" + step + "'")
            + "; its output ("
            + logFile(host)
            + "):\n"
            + logTail(host);
    return step.equals("start")
        ? new MemberStartFailedException("etcd of " + host.describe() + ": " + message)
        : new SshCommandException(message);
  }

  /** The state file: beside the member's own files, where the command's user may write. */
  String stateFile(MemberHost host) {
    String kind = spec == null ? ServiceSpec.PLAIN : spec.kind();
    if (ServiceSpec.STATIC_POD.equals(kind)) {
      return StaticPodManifest.forMember(spec.effectiveStashDir(), host).replaceAll("/+$", "")
          + "/.etcd-runbooks-restart-"
          + host.member().name();
    }
    String dir =
        ServiceSpec.SYSTEMD.equals(kind) ? host.member().installDir() : host.member().serviceDir();
    return dir + "/.etcd-runbooks-restart";
  }

  private String logFile(MemberHost host) {
    return stateFile(host) + ".log";
  }

  State read(MemberHost host) {
    return State.parse(run(host, readScript(host), "read the state of its restart").stdout());
  }

  private String readScript(MemberHost host) {
    // whether it runs is asked before the file is read: a command that ended by then has written
    // its result, one that ends in between is still seen running
    return ("f=%s\nif [ -f \"$f\" ]; then p=$(sed -n 's/^pid=//p' \"$f\")\n"
            + "  [ -n \"$p\" ] && [ -d /proc/\"$p\" ] && echo alive=yes\n  cat \"$f\"\nfi\n"
            + "echo now=$(date +%%s%%3N)\n")
        .formatted(quote(stateFile(host)));
  }

  /**
   * Waits, heartbeating, until the command of {@code token} has a result or is gone; each look
   * waits up to a second on the host.
   */
  private State awaitResult(MemberHost host, String token) {
    long deadline = System.nanoTime() + COMMAND_BOUND.toNanos();
    long startDeadline = System.nanoTime() + COMMAND_TIMEOUT.toNanos();
    String file = quote(stateFile(host));
    String look =
        ("i=0; while [ $i -lt %d ] && ! { grep -qx %s %s && grep -q '^result=' %s; } 2>/dev/null;"
                    + " do sleep 0.02; i=$((i+1)); done\n")
                .formatted(POLLS_PER_LOOK, quote("token=" + token), file, file)
            + readScript(host);
    boolean seenEnded = false;
    while (true) {
      Heartbeats.beat("member '" + host.member().name() + "': restarting on its host");
      State state = State.parse(run(host, look, "follow its restart").stdout());
      boolean ours = state.token().equals(token);
      if (ours && state.result().isPresent()) return state;
      // gone without a result: looked at once more, in case the file was replaced while it was read
      if (ours && !state.alive()) {
        if (seenEnded) return state;
        seenEnded = true;
      }
      if (!ours && System.nanoTime() > startDeadline) {
        throw new SshCommandException(
            "the restart command did not begin within "
                + COMMAND_TIMEOUT.toSeconds()
                + " s; its output ("
                + logFile(host)
                + "):\n"
                + logTail(host));
      }
      if (System.nanoTime() > deadline) {
        throw new SshCommandException(
            "the restart command has not finished within "
                + COMMAND_BOUND.toMinutes()
                + " min; look at "
                + logFile(host)
                + " on the host");
      }
    }
  }

  /**
   * The command: each step in a subshell of its own (their {@code exit} ends only the step), its
   * time and the result appended to the state file, its output to the log beside it.
   */
  String script(
      MemberHost host, ServiceManager service, RestartPlan plan, String token, String version) {
    StringBuilder changes = new StringBuilder();
    for (String change : plan.flagChanges())
      changes.append("printf '%s\\n' ").append(quote("change=" + change)).append('\n');
    Map<String, String> bodies =
        Map.of(
            "stop",
            service.stopScript(host),
            V2StoreCheck.STEP,
            plan.checkScript(),
            "flags",
            plan.flagsScript(),
            "select",
            plan.selectScript(),
            "start",
            service.launchScript(host));
    // what was put on the host for this command alone goes however the command ends
    String cleanup =
        plan.cleanupScript().isEmpty()
            ? ""
            : ("trap " + quote(plan.cleanupScript()) + " EXIT\n").replace("%", "%%");
    StringBuilder script =
        new StringBuilder(
            ("state=%s\nexec </dev/null >\"$state.log\" 2>&1\n"
                    + cleanup
                    + "{ printf 'token=%%s\\nversion=%%s\\npid=%%s\\n' %s %s $$\n%s}"
                    + " > \"$state.tmp\" && mv -f \"$state.tmp\" \"$state\" || exit 1\n")
                .formatted(quote(stateFile(host)), quote(token), quote(version), changes));
    // the check step only where it checks something: other restarts' steps stay as they were
    List<String> steps =
        STEPS.stream()
            .filter(s -> !s.equals(V2StoreCheck.STEP) || !plan.checkScript().equals(":\n"))
            .toList();
    for (String step : STEPS) {
      script.append("step_").append(step).append("() {\n").append(bodies.get(step)).append("\n}\n");
    }
    script.append(
        """
        for s in %s; do
          t=$(date +%%s%%3N)
          [ "$s" = stop ] && echo "stopped=$t" >> "$state"
          ( step_$s ) || { printf 'failed=%%s\\nresult=failed\\n' "$s" >> "$state"; exit 1; }
          e=$(date +%%s%%3N)
          echo "$s=$(( e - t ))" >> "$state"
        done
        echo "started=$e" >> "$state"
        echo result=done >> "$state"
        """
            .formatted(String.join(" ", steps)));
    return script.toString();
  }

  /**
   * Starts the command so that it outlives the SSH session: a transient unit of systemd's on a
   * systemd member's host (no session of the SSH user's holds it), a session of its own elsewhere.
   */
  private void launch(MemberHost host, String token, String script) {
    String kind = spec == null ? ServiceSpec.PLAIN : spec.kind();
    String command =
        ServiceSpec.SYSTEMD.equals(kind)
            ? "systemd-run --unit=etcd-runbooks-restart-"
                + token.substring(0, 12)
                + " --collect --quiet /bin/sh -c "
                + quote(script)
            : "setsid nohup /bin/sh -c " + quote(script) + " </dev/null >/dev/null 2>&1 &";
    run(host, command, "start its restart on the host");
  }

  private String logTail(MemberHost host) {
    return ssh.exec(
            host.target(),
            privileged(host, "tail -n 30 " + quote(logFile(host)) + " 2>&1; true"),
            COMMAND_TIMEOUT)
        .stdout();
  }

  private ExecResult run(MemberHost host, String script, String what) {
    ExecResult result = ssh.exec(host.target(), privileged(host, script), COMMAND_TIMEOUT);
    if (!result.ok()) {
      if (RootShell.viaSudo(spec, host.target().user()))
        SudoRules.refusal(result.stderr(), host.target().user(), SudoRules.shell())
            .ifPresent(
                m -> {
                  throw io.temporal.failure.ApplicationFailure.newNonRetryableFailure(
                      host.describe() + ": " + m, "SudoRefused");
                });
      host.requireOk(result, what);
    }
    return result;
  }

  /** A plain member's files are the SSH user's; a static pod's and a systemd unit's are root's. */
  private String privileged(MemberHost host, String script) {
    String kind = spec == null ? ServiceSpec.PLAIN : spec.kind();
    return ServiceSpec.PLAIN.equals(kind)
        ? script
        : RootShell.asRoot(spec, host.target().user(), script);
  }
}
