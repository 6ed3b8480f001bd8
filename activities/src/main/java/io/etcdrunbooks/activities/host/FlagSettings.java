package io.etcdrunbooks.activities.host;

import io.etcdrunbooks.workflows.upgrade.FlagTranslations;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Flags set to given values in the text of the file they live in (an environment file of {@code
 * ETCD_*} settings, a static pod's manifest), every other byte left as it was: a flag present is
 * changed on its line, a flag missing is added (after the last flag of a manifest's command, at the
 * end of an environment file).
 */
public final class FlagSettings {

  /** The file's new text and what changed ("--cert-file=/a -> --cert-file=/b"); none: same text. */
  public record Edited(String text, List<String> changes) {}

  private static final Pattern ENV_LINE = Pattern.compile("(ETCD_[A-Z0-9_]+)=(.*)");
  private static final Pattern ARG_LINE =
      Pattern.compile("(\\s*-\\s+)([\"']?)(--[a-z0-9-]+)(?:=([^\"'\\s]*))?\\2\\s*");

  private FlagSettings() {}

  /** A flag's value among a manifest's {@code - --flag=value} arguments. */
  public static java.util.Optional<String> manifestValue(String text, String flag) {
    for (String line : text.split("\n")) {
      Matcher m = ARG_LINE.matcher(line);
      if (m.matches() && m.group(3).equals(flag) && m.group(4) != null) {
        return java.util.Optional.of(m.group(4));
      }
    }
    return java.util.Optional.empty();
  }

  /** {@code flags}: flag name ("--cert-file") to value. */
  public static Edited envFile(String text, Map<String, String> flags) {
    List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
    Map<String, String> missing = new LinkedHashMap<>(flags);
    List<String> changes = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = ENV_LINE.matcher(lines.get(i).strip());
      if (!m.matches()) continue;
      String flag = FlagTranslations.flag(m.group(1));
      if (!missing.containsKey(flag)) continue;
      String value = missing.remove(flag);
      if (!value.equals(m.group(2))) {
        lines.set(i, m.group(1) + "=" + value);
        changes.add(flag + "=" + m.group(2) + " -> " + flag + "=" + value);
      }
    }
    int end = lines.size();
    while (end > 0 && lines.get(end - 1).isBlank()) end--;
    List<String> added = new ArrayList<>();
    missing.forEach(
        (flag, value) -> {
          added.add(FlagTranslations.variable(flag) + "=" + value);
          changes.add("(none) -> " + flag + "=" + value);
        });
    lines.addAll(end, added);
    return new Edited(String.join("\n", lines), List.copyOf(changes));
  }

  /** {@code flags}: flag name ("--cert-file") to value, as {@code - --flag=value} arguments. */
  public static Edited manifest(String text, Map<String, String> flags) {
    List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
    Map<String, String> missing = new LinkedHashMap<>(flags);
    List<String> changes = new ArrayList<>();
    int lastArg = -1;
    String indent = "    - ";
    for (int i = 0; i < lines.size(); i++) {
      Matcher m = ARG_LINE.matcher(lines.get(i));
      if (!m.matches()) continue;
      lastArg = i;
      indent = m.group(1);
      String flag = m.group(3);
      if (!missing.containsKey(flag)) continue;
      String value = missing.remove(flag);
      String was = m.group(4) == null ? "" : m.group(4);
      if (!value.equals(was)) {
        lines.set(i, m.group(1) + flag + "=" + value);
        changes.add(flag + "=" + was + " -> " + flag + "=" + value);
      }
    }
    if (!missing.isEmpty() && lastArg < 0) {
      throw new IllegalStateException(
          "the manifest has no '- --flag=value' command line to add " + missing.keySet() + " to");
    }
    List<String> added = new ArrayList<>();
    String argIndent = indent;
    missing.forEach(
        (flag, value) -> {
          added.add(argIndent + flag + "=" + value);
          changes.add("(none) -> " + flag + "=" + value);
        });
    lines.addAll(lastArg + 1, added);
    return new Edited(String.join("\n", lines), List.copyOf(changes));
  }
}
