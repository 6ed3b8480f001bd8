package io.etcdrunbooks.activities.host;

import static io.etcdrunbooks.activities.ssh.Shell.quote;

import io.etcdrunbooks.activities.ssh.SshConnector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A member's systemd unit as systemd itself resolves it ({@code systemctl show}, drop-ins
 * included), so nothing is assumed about where the binary is or which file holds the flags.
 *
 * @param unit the unit's name, as the inventory gives it
 * @param loaded false when systemd knows no such unit on the host
 * @param binary the path ExecStart runs
 * @param arguments ExecStart's arguments after the binary (systemd shows them unquoted)
 * @param environmentFiles the unit's EnvironmentFile= entries, in order
 * @param fragmentPath the unit file
 * @param dropIns the drop-in files systemd applies over it
 * @param user the user the service runs as; "" for root
 */
public record SystemdUnit(
    String unit,
    boolean loaded,
    String binary,
    List<String> arguments,
    List<EnvironmentFile> environmentFiles,
    String fragmentPath,
    List<String> dropIns,
    String user) {

  /** The drop-in the runbooks own; every other file of the unit is the operator's. */
  public static final String OWN_DROP_IN = "50-etcd-runbooks.conf";

  static final String PROPERTIES =
      "-p LoadState -p ExecStart -p EnvironmentFiles -p FragmentPath -p DropInPaths -p User";

  private static final Duration TIMEOUT = Duration.ofSeconds(20);
  private static final Pattern ARGV = Pattern.compile("argv\\[\\]=(.*?) ; ");
  private static final Pattern PATH = Pattern.compile("path=(\\S+)");
  private static final Pattern ENV_FILE = Pattern.compile("^(.*) \\(ignore_errors=(yes|no)\\)$");

  /** One EnvironmentFile= entry; {@code optional} for a "-" prefix (ignore_errors=yes). */
  public record EnvironmentFile(String path, boolean optional) {}

  public SystemdUnit {
    arguments = List.copyOf(arguments);
    environmentFiles = List.copyOf(environmentFiles);
    dropIns = List.copyOf(dropIns);
  }

  /** Reads the unit on the member's host; {@code systemctl show} needs no privilege. */
  public static SystemdUnit read(SshConnector ssh, MemberHost host, String unit) {
    String out =
        ssh.exec(host.target(), "systemctl show " + PROPERTIES + " " + quote(unit), TIMEOUT)
            .orThrow(host.target(), "read the systemd unit " + unit + " of " + host.describe())
            .stdout();
    return parse(unit, out);
  }

  static SystemdUnit parse(String unit, String show) {
    boolean loaded = false;
    String binary = "";
    List<String> arguments = new ArrayList<>();
    List<EnvironmentFile> environmentFiles = new ArrayList<>();
    String fragmentPath = "";
    List<String> dropIns = new ArrayList<>();
    String user = "";
    for (String line : show.split("\n")) {
      int eq = line.indexOf('=');
      if (eq < 0) continue;
      String name = line.substring(0, eq);
      String value = line.substring(eq + 1).strip();
      switch (name) {
        case "LoadState" -> loaded = value.equals("loaded");
        case "ExecStart" -> {
          Matcher path = PATH.matcher(value);
          Matcher argv = ARGV.matcher(value);
          if (path.find()) binary = path.group(1);
          arguments.clear();
          if (argv.find()) {
            List<String> words = List.of(argv.group(1).strip().split("\\s+"));
            arguments.addAll(words.subList(Math.min(1, words.size()), words.size()));
          }
        }
        case "EnvironmentFiles" -> {
          Matcher file = ENV_FILE.matcher(value);
          if (file.matches()) {
            environmentFiles.add(new EnvironmentFile(file.group(1), file.group(2).equals("yes")));
          } else if (!value.isEmpty()) {
            environmentFiles.add(new EnvironmentFile(value, false));
          }
        }
        case "FragmentPath" -> fragmentPath = value;
        case "DropInPaths" -> {
          if (!value.isEmpty()) dropIns.addAll(List.of(value.split("\\s+")));
        }
        case "User" -> user = value;
        default -> {}
      }
    }
    return new SystemdUnit(
        unit, loaded, binary, arguments, environmentFiles, fragmentPath, dropIns, user);
  }

  /** The unit's name with its type, as systemd's paths spell it. */
  public String serviceName() {
    return unit.endsWith(".service") ? unit : unit + ".service";
  }

  /** Where drop-ins for this unit go on the host. */
  public String dropInDir() {
    return "/etc/systemd/system/" + serviceName() + ".d";
  }

  /** The path of the runbooks' own drop-in. */
  public String ownDropIn() {
    return dropInDir() + "/" + OWN_DROP_IN;
  }

  /**
   * The file the member's {@code ETCD_*} settings are kept in: the unit's first EnvironmentFile=
   * that is not optional, else its first; empty when it has none.
   */
  public java.util.Optional<String> environmentFile() {
    return environmentFiles.stream()
        .filter(f -> !f.optional())
        .findFirst()
        .or(() -> environmentFiles.stream().findFirst())
        .map(EnvironmentFile::path);
  }

  /**
   * Whether ExecStart sets this flag ({@code --name} or {@code --name=...}) on its command line.
   */
  public boolean commandLineSets(String flag) {
    return arguments.stream().anyMatch(a -> a.equals(flag) || a.startsWith(flag + "="));
  }
}
