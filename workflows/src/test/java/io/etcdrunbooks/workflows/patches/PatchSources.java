package io.etcdrunbooks.workflows.patches;

import io.etcdrunbooks.workflows.common.Patch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The workflow sources (path relative to the source root -> text) and what they say about version
 * markers: where one is asked other than through a registered Patch, and the registries themselves.
 */
final class PatchSources {

  static final Path ROOT = Path.of("src", "main", "java");
  private static final String WRAPPER = "io/etcdrunbooks/workflows/common/Patch.java";
  private static final Pattern GET_VERSION = Pattern.compile("\\bgetVersion\\s*\\(");
  private static final Pattern MADE =
      Pattern.compile("\\b(Patch\\.replayed|Patch\\.unreplayed|new\\s+Patch)\\s*\\(");

  private PatchSources() {}

  static Map<String, String> read() {
    Map<String, String> sources = new TreeMap<>();
    try (Stream<Path> files = Files.walk(ROOT)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
        sources.put(ROOT.relativize(f).toString().replace('\\', '/'), Files.readString(f));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return sources;
  }

  /**
   * Each place that asks for a version marker other than through a registry's constant: a
   * Workflow.getVersion outside the wrapper (with a literal or a constant of its own), or a Patch
   * made outside a registry (whose id no registry lists).
   */
  static List<String> violations(Map<String, String> sources) {
    List<String> found = new ArrayList<>();
    sources.forEach(
        (path, text) -> {
          if (!path.equals(WRAPPER)) {
            each(
                GET_VERSION,
                text,
                m -> found.add(path + ":" + line(text, m) + " asks Workflow.getVersion itself"));
          }
          if (!isRegistry(path) && !path.equals(WRAPPER)) {
            each(
                MADE,
                text,
                m -> found.add(path + ":" + line(text, m) + " makes a Patch outside a registry"));
          }
        });
    return found;
  }

  static boolean isRegistry(String path) {
    return path.endsWith("Patches.java");
  }

  /** Each registry constant by its name as call sites write it ("UpgradePatches.IMAGE_TAGS"). */
  static Map<String, Patch> registered(Map<String, String> sources) throws Exception {
    Map<String, Patch> named = new TreeMap<>();
    for (String path : sources.keySet()) {
      if (!isRegistry(path)) continue;
      Class<?> registry = Class.forName(path.replace(".java", "").replace('/', '.'));
      for (Field f : registry.getDeclaredFields()) {
        if (Modifier.isStatic(f.getModifiers()) && f.getType() == Patch.class) {
          f.setAccessible(true);
          named.put(registry.getSimpleName() + "." + f.getName(), (Patch) f.get(null));
        }
      }
    }
    return named;
  }

  private static void each(Pattern p, String text, java.util.function.Consumer<Matcher> action) {
    Matcher m = p.matcher(text);
    while (m.find()) action.accept(m);
  }

  private static int line(String text, Matcher m) {
    return (int) text.substring(0, m.start()).chars().filter(c -> c == '\n').count() + 1;
  }
}
