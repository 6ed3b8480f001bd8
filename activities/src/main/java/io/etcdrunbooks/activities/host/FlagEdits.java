package io.etcdrunbooks.activities.host;

import io.etcdrunbooks.workflows.upgrade.FlagTranslations;
import io.etcdrunbooks.workflows.upgrade.FlagTranslations.Flag;
import io.etcdrunbooks.workflows.upgrade.FlagTranslations.ForTarget;
import io.temporal.failure.ApplicationFailure;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A member's flags translated for a target version ({@link FlagTranslations}) in the text of the
 * file they live in, every other byte left as it was: a plain member's environment file, a static
 * pod's manifest.
 */
final class FlagEdits {

  /**
   * The file's new text and what changed, "--debug -> --log-level=debug", then each setting left
   * out for the target and why that is safe; no change: same text.
   */
  record Edited(String text, List<String> changes) {}

  private static final Pattern ENV_LINE = Pattern.compile("(ETCD_[A-Z0-9_]+)=(.*)");
  private static final Pattern ARG_LINE =
      Pattern.compile("(\\s*-\\s+)(--[a-z0-9-]+)(?:=(\\S*))?\\s*");

  private FlagEdits() {}

  static Edited envFile(String text, String target, String where) {
    return edit(
        text,
        line -> {
          Matcher m = ENV_LINE.matcher(line);
          if (!m.matches()) return null;
          return new Parsed("", FlagTranslations.flag(m.group(1)), m.group(2), true);
        },
        target,
        where);
  }

  static Edited manifest(String text, String target, String where) {
    return edit(
        text,
        line -> {
          Matcher m = ARG_LINE.matcher(line);
          if (!m.matches()) return null;
          return new Parsed(m.group(1), m.group(2), m.group(3), false);
        },
        target,
        where);
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

  /**
   * A flag that cannot be given to the target fails the edit, non-retryably and before anything is
   * written, naming {@code where} the flags live and the flag.
   */
  private static Edited edit(String text, Parser parser, String target, String where) {
    List<String> lines = List.of(text.split("\n", -1));
    List<Flag> flags = new ArrayList<>();
    for (String line : lines) {
      Parsed p = parser.parse(line);
      if (p != null) flags.add(new Flag(p.flag(), p.value()));
    }
    ForTarget translated = FlagTranslations.forTarget(flags, target);
    if (!translated.refused().isEmpty()) {
      throw ApplicationFailure.newNonRetryableFailure(
          "the flags in %s cannot be given to etcd %s: %s; change them there and run again"
              .formatted(where, target, String.join("; ", translated.refused())),
          "FlagsNotTranslatable");
    }
    if (translated.changes().isEmpty()) return new Edited(text, List.of());
    List<String> out = new ArrayList<>();
    int k = 0;
    for (String line : lines) {
      Parsed p = parser.parse(line);
      if (p == null) {
        out.add(line);
        continue;
      }
      List<Flag> now = translated.each().get(k);
      if (now.equals(List.of(flags.get(k)))) {
        out.add(line);
      } else {
        for (Flag f : now) out.add(p.render(f));
      }
      k++;
    }
    List<String> changes = new ArrayList<>(translated.changes());
    changes.addAll(translated.notes());
    return new Edited(String.join("\n", out), List.copyOf(changes));
  }
}
