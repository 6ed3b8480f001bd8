package io.etcdrunbooks.workflows.patches;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.activities.ReplayOnly;
import io.etcdrunbooks.workflows.common.Patch;
import io.temporal.activity.ActivityInterface;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Which activity methods are live and which only the old branch of a patch calls: a method no live
 * workflow code calls is marked {@link ReplayOnly}, and one so marked is called from the legacy
 * code alone (LegacyMemberSwitch and its like), so it can go with that branch.
 */
class ReplayOnlyTest {

  private static final String ACTIVITIES = "io/etcdrunbooks/workflows/activities/";

  /** Steps the activities run inside another activity; no workflow has ever scheduled them. */
  private static final Set<String> NOT_SCHEDULED = Set.of("HostActivities.launchMember");

  private static Map<String, String> sources;
  private static Map<String, Patch> registered;
  private static List<Method> methods;

  /** Per workflow source outside the activity interfaces, the names it calls or refers to. */
  private static final Map<String, Set<String>> called = new TreeMap<>();

  private static final Pattern CALL = Pattern.compile("(?:\\.|::)\\s*(\\w+)");

  @BeforeAll
  static void readSources() throws Exception {
    sources = PatchSources.read();
    registered = PatchSources.registered(sources);
    sources.forEach(
        (path, text) -> {
          if (path.startsWith(ACTIVITIES)) return;
          Set<String> names = new TreeSet<>();
          Matcher m = CALL.matcher(text);
          while (m.find()) names.add(m.group(1));
          called.put(path, names);
        });
    methods = new ArrayList<>();
    for (String path : sources.keySet()) {
      if (!path.startsWith(ACTIVITIES)) continue;
      Class<?> type = Class.forName(path.replace(".java", "").replace('/', '.'));
      if (!type.isInterface() || !type.isAnnotationPresent(ActivityInterface.class)) continue;
      for (Method m : type.getDeclaredMethods()) {
        if (Modifier.isAbstract(m.getModifiers())) methods.add(m);
      }
    }
  }

  @Test
  void eachReplayOnlyMethodNamesARegisteredChangeAndTheDayItShipped() {
    List<Method> marked =
        methods.stream().filter(m -> m.isAnnotationPresent(ReplayOnly.class)).toList();
    assertThat(marked).isNotEmpty();
    for (Method m : marked) {
      ReplayOnly replayOnly = m.getAnnotation(ReplayOnly.class);
      Patch patch =
          registered.values().stream()
              .filter(p -> p.id().equals(replayOnly.changeId()))
              .findFirst()
              .orElseThrow(
                  () ->
                      new AssertionError(
                          name(m) + ": " + replayOnly.changeId() + " is not registered"));
      assertThat(replayOnly.since()).as(name(m)).isEqualTo(patch.shipped());
    }
  }

  @Test
  void aReplayOnlyMethodIsCalledByLegacyCodeAlone() {
    for (Method m : methods) {
      if (!m.isAnnotationPresent(ReplayOnly.class)) continue;
      assertThat(callers(m, true)).as(name(m) + " called from live code").isEmpty();
      assertThat(callers(m, false)).as(name(m) + " called from legacy code").isNotEmpty();
    }
  }

  @Test
  void everyActivityMethodNoLiveCodeCallsIsMarkedReplayOnly() {
    Set<String> unmarked = new TreeSet<>();
    for (Method m : methods) {
      if (m.isAnnotationPresent(ReplayOnly.class) || NOT_SCHEDULED.contains(name(m))) continue;
      if (callers(m, true).isEmpty()) unmarked.add(name(m));
    }
    assertThat(unmarked).isEmpty();
  }

  /** The workflow sources that call the method: the live ones, or the legacy ones. */
  private static Set<String> callers(Method m, boolean live) {
    Set<String> callers = new TreeSet<>();
    called.forEach(
        (path, names) -> {
          boolean legacy = path.substring(path.lastIndexOf('/') + 1).startsWith("Legacy");
          if (legacy != live && names.contains(m.getName())) callers.add(path);
        });
    return callers;
  }

  private static String name(Method m) {
    return m.getDeclaringClass().getSimpleName() + "." + m.getName();
  }
}
