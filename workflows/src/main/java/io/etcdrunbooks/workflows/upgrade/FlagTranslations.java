package io.etcdrunbooks.workflows.upgrade;

import io.etcdrunbooks.workflows.model.EtcdVersion;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * A member's flags translated for the version it is about to run, where its flags live (unit,
 * environment file, static-pod manifest): forwards when the target no longer takes, or deprecates,
 * the old name; backwards when it does not know the new one yet (a rollback, a restore, a
 * downgrade). Checked by FlagTableAgainstBinariesTest by starting the real 3.3.25 to 3.7.3 binaries
 * with each row: 3.3.25 has neither --log-level nor --log-outputs, 3.4.23 takes both old and new
 * names, 3.5.30 only the new ones (CHANGELOG-3.4.md, CHANGELOG-3.5.md); 3.6.16 takes the 3.5
 * --experimental-* names and their new names or feature gates, 3.7.3 only the new ones
 * (CHANGELOG-3.6.md, upgrade_3_7.md).
 */
public final class FlagTranslations {

  /**
   * @param removedIn the first minor that refuses {@code oldFlag}
   * @param introducedIn the first minor that takes {@code newFlag}
   * @param forwardFrom the first minor for which {@code oldFlag} is rewritten to {@code newFlag}:
   *     where it is removed, or earlier where etcd deprecates it and a later minor removes it (so a
   *     member is ready for that minor, as kubeadm does for 3.6)
   */
  public record Renamed(
      String removedIn, String introducedIn, String oldFlag, String newFlag, String forwardFrom) {
    public Renamed(String removedIn, String introducedIn, String oldFlag, String newFlag) {
      this(removedIn, introducedIn, oldFlag, newFlag, removedIn);
    }
  }

  /**
   * A server feature gate of {@code --feature-gates=Name=true,...}, and the boolean
   * --experimental-* flag that set it before gates came in 3.6 (null when none did).
   *
   * @param ifDropped why the runbook may leave the gate out for a minor that lacks it and has no
   *     flag for it; every gate in the table has either a flag or such a reason
   */
  public record Gate(String name, String introducedIn, String flag, String ifDropped) {}

  /** A flag a minor added with no counterpart in the minor before: left out on the way back. */
  public record Added(String minor, String flag, String ifDropped) {}

  /** A flag as it should be given; {@code value} null for a flag given alone ({@code --debug}). */
  public record Flag(String name, String value) {
    public String asArgument() {
      return value == null ? name : name + "=" + value;
    }

    /** "--name=value" or "--debug" as given on a command line. */
    public static Flag parse(String argument) {
      String[] nameValue = argument.split("=", 2);
      return new Flag(nameValue[0], nameValue.length > 1 ? nameValue[1] : null);
    }
  }

  /**
   * A member's flags for a target.
   *
   * @param each for each flag given, in order, the flags that replace it: itself when unchanged,
   *     none when it goes, several when one {@code --feature-gates} splits into 3.5 flags
   * @param changes what changes, "--debug -> --log-level=debug"; none: nothing to write
   * @param notes settings left out for the target, and why that is safe
   * @param refused flags that cannot be given to the target, each named with the reason; when any
   *     is, nothing may be written
   */
  public record ForTarget(
      List<List<Flag>> each, List<String> changes, List<String> notes, List<String> refused) {

    /** The member's flags for the target, in order. */
    public List<Flag> flags() {
      return each.stream().flatMap(List::stream).toList();
    }
  }

  public static final String FEATURE_GATES = "--feature-gates";

  static final List<Renamed> RENAMED =
      List.of(
          new Renamed("3.4", "3.0", "--ca-file", "--trusted-ca-file"),
          new Renamed("3.4", "3.0", "--peer-ca-file", "--peer-trusted-ca-file"),
          new Renamed("3.5", "3.4", "--log-output", "--log-outputs"),
          new Renamed("3.5", "3.4", "--debug", "--log-level"),
          // etcd 3.6.16 server/embed/config.go experimentalFlagMigrationMap ("in 3.6, we are
          // migrating all the --experimental flags to feature gate and flags without the prefix"),
          // and etcdmain/config.go parseWarningUnaryRequestDuration; 3.7.3 defines only the new
          // names (upgrade_3_7.md: "removed all --experimental-* flags")
          renamed36("compact-hash-check-time"),
          renamed36("corrupt-check-time"),
          renamed36("compaction-batch-limit"),
          renamed36("watch-progress-notify-interval"),
          renamed36("warning-apply-duration"),
          renamed36("bootstrap-defrag-threshold-megabytes"),
          renamed36("memory-mlock"),
          renamed36("snapshot-catchup-entries"),
          renamed36("compaction-sleep-interval"),
          renamed36("downgrade-check-time"),
          renamed36("peer-skip-client-san-verification"),
          renamed36("enable-distributed-tracing"),
          renamed36("distributed-tracing-address"),
          renamed36("distributed-tracing-service-name"),
          renamed36("distributed-tracing-instance-id"),
          renamed36("distributed-tracing-sampling-rate"),
          renamed36("warning-unary-request-duration"));

  /**
   * etcd 3.6.16 server/features/etcd_features.go (DefaultEtcdServerFeatureGates and
   * ExperimentalFlagToFeatureMap) and 3.7.3's, which adds FastLeaseKeepAlive and PriorityRequest.
   * Going back, a gate with no flag in the target is left out: none of them guards data (the
   * InitialCorruptCheck and CompactHashCheck checks, the lease checkpoints all have 3.5 flags and
   * are kept); a gate the table does not know is refused, since what leaving it out changes is
   * unknown.
   */
  static final List<Gate> GATES =
      List.of(
          new Gate(
              "StopGRPCServiceOnDefrag", "3.6", "--experimental-stop-grpc-service-on-defrag", null),
          new Gate(
              "TxnModeWriteWithSharedBuffer",
              "3.6",
              "--experimental-txn-mode-write-with-shared-buffer",
              null),
          new Gate("InitialCorruptCheck", "3.6", "--experimental-initial-corrupt-check", null),
          new Gate("CompactHashCheck", "3.6", "--experimental-compact-hash-check-enabled", null),
          new Gate("LeaseCheckpoint", "3.6", "--experimental-enable-lease-checkpoint", null),
          new Gate(
              "LeaseCheckpointPersist",
              "3.6",
              "--experimental-enable-lease-checkpoint-persist",
              null),
          new Gate(
              "SetMemberLocalAddr",
              "3.6",
              null,
              "peer connections then leave from the address the kernel picks, as before 3.6"),
          new Gate(
              "FastLeaseKeepAlive",
              "3.7",
              null,
              "lease keep-alives are then answered as in 3.6, after the applied index catches up"),
          new Gate(
              "PriorityRequest",
              "3.7",
              null,
              "requests are then served in arrival order, as before 3.7"));

  /** Checked on 3.5.35, which refuses each ("flag provided but not defined"). */
  static final List<Added> ADDED =
      List.of(
          new Added("3.6", "--warning-unary-request-duration", "only the slow-request log changes"),
          new Added(
              "3.6",
              "--experimental-warning-unary-request-duration",
              "only the slow-request log changes"),
          new Added("3.6", "--log-format", "etcd then logs JSON, its default"),
          new Added("3.6", "--max-learners", "etcd then allows one learner, its default"));

  private FlagTranslations() {}

  private static Renamed renamed36(String name) {
    return new Renamed("3.7", "3.6", "--experimental-" + name, "--" + name, "3.6");
  }

  public static List<Renamed> renamed() {
    return RENAMED;
  }

  public static List<Gate> gates() {
    return GATES;
  }

  public static List<Added> added() {
    return ADDED;
  }

  /**
   * A member's flags for {@code target}: the one place upgrades, rollbacks, restores and downgrades
   * translate them. Boolean --experimental-* flags that became feature gates merge into one {@code
   * --feature-gates} (with the member's own, at its place, else at the first such flag's); going
   * below 3.6 a {@code --feature-gates} splits into those flags.
   */
  public static ForTarget forTarget(List<Flag> flags, String target) {
    return new Translation(flags, EtcdVersion.parse(target)).run();
  }

  /** Whether {@link #forTarget} rewrites this flag for some target: it need not be refused. */
  public static boolean translatable(String name) {
    return RENAMED.stream().anyMatch(r -> r.oldFlag().equals(name))
        || GATES.stream().anyMatch(g -> name.equals(g.flag()));
  }

  /** ETCD_LOG_LEVEL for --log-level. */
  public static String variable(String flag) {
    return "ETCD_" + flag.replaceFirst("^-+", "").replace('-', '_').toUpperCase(Locale.ROOT);
  }

  /** --log-level for ETCD_LOG_LEVEL. */
  public static String flag(String variable) {
    return "--" + variable.replaceFirst("^ETCD_", "").replace('_', '-').toLowerCase(Locale.ROOT);
  }

  private static EtcdVersion minor(String minor) {
    return EtcdVersion.parse(minor + ".0");
  }

  /** One member's flags on their way to one target. */
  private static final class Translation {
    private final List<Flag> in;
    private final EtcdVersion to;
    private final boolean takesGates;
    private final List<List<Flag>> each = new ArrayList<>();
    private final List<String> changes = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private final List<String> refused = new ArrayList<>();
    private boolean gatesChange;

    Translation(List<Flag> in, EtcdVersion to) {
      this.in = List.copyOf(in);
      this.to = to;
      this.takesGates = !to.isBefore(minor("3.6"));
    }

    ForTarget run() {
      Map<String, Boolean> own = ownGates();
      Map<String, Boolean> merged = new LinkedHashMap<>(own);
      int gatesAt = indexOf(FEATURE_GATES);
      for (Flag flag : in) each.add(one(flag, own, merged));
      if (takesGates) placeGates(merged, gatesAt);
      dropDuplicates();
      for (int i = 0; i < in.size(); i++) describe(in.get(i), each.get(i));
      return new ForTarget(
          List.copyOf(each), List.copyOf(changes), List.copyOf(notes), List.copyOf(refused));
    }

    /** The gates the member's own --feature-gates sets, that the target knows. */
    private Map<String, Boolean> ownGates() {
      Map<String, Boolean> own = new LinkedHashMap<>();
      for (Flag flag : in) {
        if (!flag.name().equals(FEATURE_GATES)) continue;
        for (Map.Entry<String, Boolean> e : parseGates(flag.value()).entrySet()) {
          Optional<Gate> gate = gate(e.getKey());
          if (gate.isEmpty()) {
            refused.add(
                "%s=%s: the runbook does not know gate %s, so it cannot tell whether etcd %s takes it or what leaving it out changes; remove it from the member's flags"
                    .formatted(FEATURE_GATES, flag.value(), e.getKey(), to));
          } else if (to.isBefore(minor(gate.get().introducedIn())) && takesGates) {
            notes.add(dropped(gate.get(), e.getValue()));
            gatesChange = true;
          } else {
            own.put(e.getKey(), e.getValue());
          }
        }
      }
      return own;
    }

    private List<Flag> one(Flag flag, Map<String, Boolean> own, Map<String, Boolean> merged) {
      if (flag.name().equals(FEATURE_GATES)) {
        return takesGates ? List.of() : split(flag);
      }
      Optional<Gate> gated = GATES.stream().filter(g -> flag.name().equals(g.flag())).findFirst();
      if (gated.isPresent() && takesGates) {
        Gate gate = gated.get();
        Optional<Boolean> on = goBool(flag.value());
        if (on.isEmpty()) {
          refused.add(
              "%s is not true or false, so it cannot become %s=%s"
                  .formatted(flag.asArgument(), FEATURE_GATES, gate.name()));
          return List.of(flag);
        }
        if (own.containsKey(gate.name()) && !own.get(gate.name()).equals(on.get())) {
          // etcd 3.6 refuses both as well (embed.SetFeatureGatesFromExperimentalFlags)
          refused.add(
              "%s and %s=%s=%s disagree; keep one of them"
                  .formatted(flag.asArgument(), FEATURE_GATES, gate.name(), own.get(gate.name())));
          return List.of(flag);
        }
        merged.putIfAbsent(gate.name(), on.get());
        gatesChange = true;
        return List.of();
      }
      for (Added added : ADDED) {
        if (added.flag().equals(flag.name()) && to.isBefore(minor(added.minor()))) {
          notes.add(
              "%s left out: etcd %s has no such flag; %s"
                  .formatted(flag.asArgument(), to, added.ifDropped()));
          return List.of();
        }
      }
      for (Renamed r : RENAMED) {
        if (r.oldFlag().equals(flag.name()) && !to.isBefore(minor(r.forwardFrom()))) {
          return forward(r, flag.value()).map(List::of).orElse(List.of());
        }
        if (r.newFlag().equals(flag.name()) && to.isBefore(minor(r.introducedIn()))) {
          return backward(r, flag.value()).map(List::of).orElse(List.of());
        }
      }
      return List.of(flag);
    }

    /** A --feature-gates for a target before 3.6: the 3.5 flags of its gates. */
    private List<Flag> split(Flag gates) {
      List<Flag> flags = new ArrayList<>();
      for (Map.Entry<String, Boolean> e : parseGates(gates.value()).entrySet()) {
        Optional<Gate> gate = gate(e.getKey());
        if (gate.isEmpty()) continue; // refused in ownGates
        if (gate.get().flag() != null) {
          flags.add(new Flag(gate.get().flag(), e.getValue().toString()));
        } else {
          notes.add(dropped(gate.get(), e.getValue()));
        }
      }
      return flags;
    }

    /** The merged --feature-gates at the member's own, else at the first flag that became one. */
    private void placeGates(Map<String, Boolean> merged, int gatesAt) {
      int at = gatesAt;
      if (at < 0) {
        for (int i = 0; i < in.size() && at < 0; i++) {
          String name = in.get(i).name();
          if (GATES.stream().anyMatch(g -> name.equals(g.flag()))) at = i;
        }
      }
      if (at < 0 || merged.isEmpty()) return;
      if (!gatesChange) {
        each.set(at, List.of(in.get(at))); // the member's own, as it gave it
        return;
      }
      String value =
          merged.entrySet().stream()
              .map(e -> e.getKey() + "=" + e.getValue())
              .collect(Collectors.joining(","));
      each.set(at, List.of(new Flag(FEATURE_GATES, value)));
    }

    /** A translated flag the member gives already under that name: the member's own stays. */
    private void dropDuplicates() {
      List<String> kept = new ArrayList<>();
      for (int i = 0; i < in.size(); i++) {
        if (each.get(i).equals(List.of(in.get(i)))) kept.add(in.get(i).name());
      }
      for (int i = 0; i < in.size(); i++) {
        if (each.get(i).equals(List.of(in.get(i)))) continue;
        each.set(i, each.get(i).stream().filter(f -> !kept.contains(f.name())).toList());
      }
    }

    private void describe(Flag was, List<Flag> now) {
      if (now.equals(List.of(was))) return;
      String to =
          now.isEmpty()
              ? (takesGates && GATES.stream().anyMatch(g -> was.name().equals(g.flag()))
                  ? "(into " + FEATURE_GATES + ")"
                  : "(removed)")
              : now.stream().map(Flag::asArgument).collect(Collectors.joining(" "));
      changes.add(was.asArgument() + " -> " + to);
    }

    private int indexOf(String name) {
      for (int i = 0; i < in.size(); i++) if (in.get(i).name().equals(name)) return i;
      return -1;
    }

    private String dropped(Gate gate, boolean value) {
      return "%s=%s left out: etcd %s has no such gate and no flag for it; %s"
          .formatted(gate.name(), value, to, gate.ifDropped());
    }

    /** Name=true,Other=false as etcd's featuregate parses it; a malformed entry is refused. */
    private Map<String, Boolean> parseGates(String value) {
      Map<String, Boolean> gates = new LinkedHashMap<>();
      if (value == null) return gates;
      for (String entry : value.split(",")) {
        if (entry.isBlank()) continue;
        String[] kv = entry.strip().split("=", 2);
        Optional<Boolean> on = kv.length == 2 ? goBool(kv[1].strip()) : Optional.empty();
        if (on.isEmpty()) {
          refused.add(
              "%s entry '%s' is not Name=true or Name=false".formatted(FEATURE_GATES, entry));
          continue;
        }
        gates.put(kv[0].strip(), on.get());
      }
      return gates;
    }
  }

  private static Optional<Gate> gate(String name) {
    return GATES.stream().filter(g -> g.name().equals(name)).findFirst();
  }

  /** Go's strconv.ParseBool, which etcd's boolean flags use; a flag given alone is true. */
  static Optional<Boolean> goBool(String value) {
    if (value == null) return Optional.of(true);
    return switch (value) {
      case "1", "t", "T", "TRUE", "true", "True" -> Optional.of(true);
      case "0", "f", "F", "FALSE", "false", "False" -> Optional.of(false);
      default -> Optional.empty();
    };
  }

  /** --debug=false needs no --log-level at all. */
  private static Optional<Flag> forward(Renamed r, String value) {
    if (r.oldFlag().equals("--debug")) {
      boolean on = value == null || value.isBlank() || value.equalsIgnoreCase("true");
      return on ? Optional.of(new Flag("--log-level", "debug")) : Optional.empty();
    }
    return Optional.of(new Flag(r.newFlag(), value));
  }

  private static Optional<Flag> backward(Renamed r, String value) {
    if (r.newFlag().equals("--log-level")) {
      return "debug".equalsIgnoreCase(value)
          ? Optional.of(new Flag("--debug", "true"))
          : Optional.empty();
    }
    return Optional.of(new Flag(r.oldFlag(), value));
  }
}
