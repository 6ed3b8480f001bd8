package io.etcdrunbooks.activities.host;

import io.etcdrunbooks.workflows.upgrade.FlagTranslations;
import io.etcdrunbooks.workflows.upgrade.FlagTranslations.Flag;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A member's flags translated for a target version ({@link FlagTranslations}) in the text of the
 * file they live in, every other byte left as it was: a plain member's environment file, a static
 * pod's manifest.
 */
final class FlagEdits {

  /** The file's new text and what changed, "--debug -> --log-level=debug"; no change: same text. */
  record Edited(String text, List<String> changes) {}

  private static final Pattern ENV_LINE = Pattern.compile("(ETCD_[A-Z0-9_]+)=(.*)");
  private static final Pattern ARG_LINE =
      Pattern.compile("(\\s*-\\s+)(--[a-z0-9-]+)(?:=(\\S*))?\\s*");

  private FlagEdits() {}

  static Edited envFile(String text, String target) {
    return edit(
        text,
        line -> {
          Matcher m = ENV_LINE.matcher(line);
          if (!m.matches()) return null;
          return new Parsed("", FlagTranslations.flag(m.group(1)), m.group(2), true);
        },
        target);
  }

  static Edited manifest(String text, String target) {
    return edit(
        text,
        line -> {
          Matcher m = ARG_LINE.matcher(line);
          if (!m.matches()) return null;
          return new Parsed(m.group(1), m.group(2), m.group(3), false);
        },
        target);
  }

  private record Parsed(String indent, String flag, String value, boolean env) {
    String render(Flag to) {
      if (env) {
        return FlagTranslations.variable(to.name())
            + "="
            + (to.value() == null ? "true" : to.value());
      }
      return indent + to.asArgument();
    }
  }

  private interface Parser {
    Parsed parse(String line);
  }

  private static Edited edit(String text, Parser parser, String target) {
    List<String> lines = new ArrayList<>(List.of(text.split("\n", -1)));
    List<String> names = new ArrayList<>();
    for (String line : lines) {
      Parsed p = parser.parse(line);
      if (p != null) names.add(p.flag());
    }
    List<String> changes = new ArrayList<>();
    List<String> out = new ArrayList<>();
    for (String line : lines) {
      Parsed p = parser.parse(line);
      Optional<Flag> to =
          p == null ? Optional.empty() : FlagTranslations.translate(p.flag(), p.value(), target);
      if (to.isEmpty()) {
        out.add(line);
        continue;
      }
      String was = p.value() == null ? p.flag() : p.flag() + "=" + p.value();
      // a flag dropped, or renamed to one the file gives already: the line goes
      if (to.get() == FlagTranslations.DROPPED || names.contains(to.get().name())) {
        changes.add(was + " -> (removed)");
        continue;
      }
      out.add(p.render(to.get()));
      changes.add(was + " -> " + to.get().asArgument());
    }
    return new Edited(String.join("\n", out), List.copyOf(changes));
  }
}
