package io.etcdrunbooks.workflows.patches;

import static java.util.stream.Collectors.counting;
import static java.util.stream.Collectors.groupingBy;
import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.workflows.common.Patch;
import io.etcdrunbooks.workflows.testing.OldBranches;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Every version marker of the workflows is a registered patch, and each patch names exactly the
 * recorded histories that replay its old branch: the ones to delete with that branch.
 */
class PatchRegistryTest {

  private static final Path HISTORIES = Path.of("src", "test", "resources", "histories");

  private static Map<String, String> sources;
  private static Map<String, Patch> registered;

  @BeforeAll
  static void readSources() throws Exception {
    sources = PatchSources.read();
    registered = PatchSources.registered(sources);
  }

  @Test
  void everyVersionMarkerIsAskedThroughARegisteredPatch() {
    assertThat(registered).isNotEmpty();
    assertThat(PatchSources.violations(sources)).isEmpty();
  }

  @Test
  void aGetVersionOfItsOwnOrAPatchMadeAtItsCallSiteIsFound() {
    Map<String, String> sources =
        Map.of(
            "a/Literal.java",
            "if (Workflow.getVersion(\"new-thing\", Workflow.DEFAULT_VERSION, 1) >= 1) go();",
            "a/OwnConstant.java",
            "int v = Workflow.getVersion(NEW_THING, Workflow.DEFAULT_VERSION, 2);",
            "a/MadeHere.java",
            "if (Patch.unreplayed(\"new-thing\", \"2026-11-27\", \"goes\").applies()) go();",
            "a/UsesARegistry.java",
            "if (APatches.NEW_THING.applies()) go();",
            "a/APatches.java",
            "static final Patch NEW_THING = Patch.unreplayed(\"new-thing\", \"2026-11-27\", \"goes\");");
    assertThat(PatchSources.violations(sources))
        .containsExactlyInAnyOrder(
            "a/Literal.java:1 asks Workflow.getVersion itself",
            "a/OwnConstant.java:1 asks Workflow.getVersion itself",
            "a/MadeHere.java:1 makes a Patch outside a registry");
  }

  @Test
  void eachChangeIdIsRegisteredOnceDatedAndAskedSomewhere() {
    Map<String, Long> ids =
        registered.values().stream().collect(groupingBy(Patch::id, TreeMap::new, counting()));
    assertThat(ids).allSatisfy((id, times) -> assertThat(times).as(id).isEqualTo(1L));
    Set<String> unasked = new TreeSet<>();
    registered.forEach(
        (reference, patch) -> {
          Pattern asks = Pattern.compile("\\b" + Pattern.quote(reference) + "\\b");
          boolean asked =
              sources.entrySet().stream()
                  .filter(s -> !PatchSources.isRegistry(s.getKey()))
                  .anyMatch(s -> asks.matcher(s.getValue()).find());
          if (!asked) unasked.add(reference + " (" + patch.id() + ")");
        });
    assertThat(unasked).as("registered, asked by no workflow: retire them").isEmpty();
    assertThat(registered.values())
        .allSatisfy(
            p -> {
              assertThat(p.change()).as(p.id()).isNotBlank();
              assertThat(LocalDate.parse(p.shipped()))
                  .as(p.id())
                  .isBefore(LocalDate.now().plusDays(1));
            });
  }

  @Test
  void everyNamedHistoryIsARecordedResource() {
    Set<String> missing = new TreeSet<>();
    for (Patch p : registered.values()) {
      for (String history : p.oldBranchHistories()) {
        if (getClass().getClassLoader().getResource(history) == null) {
          missing.add(p.id() + " names " + history);
        }
      }
    }
    assertThat(missing).isEmpty();
  }

  /**
   * Replays every recorded history and notes where each took an old branch: the histories a patch
   * names are exactly those, so a patch without one (unreplayed) really has no history behind it,
   * and the change ids the workflows ask are all registered.
   */
  @Test
  void eachPatchNamesExactlyTheHistoriesThatReplayItsOldBranch() throws Exception {
    Map<String, Set<String>> named = new TreeMap<>();
    Map<String, Set<String>> replayed = new TreeMap<>();
    for (Patch p : registered.values()) {
      named.put(p.id(), new TreeSet<>(p.oldBranchHistories()));
      replayed.put(p.id(), new TreeSet<>());
    }
    Set<String> unregistered = new TreeSet<>();
    try (OldBranches replays = new OldBranches();
        Stream<Path> files = Files.list(HISTORIES)) {
      for (Path file : files.filter(f -> f.toString().endsWith(".json")).sorted().toList()) {
        String history = "histories/" + file.getFileName();
        for (String id : replays.askedBy(history)) {
          if (!replayed.containsKey(id)) unregistered.add(id + " (asked by " + history + ")");
        }
        for (String id : replays.of(history)) {
          replayed.computeIfAbsent(id, none -> new TreeSet<>()).add(history);
        }
      }
    }
    assertThat(unregistered).as("change ids asked but not registered").isEmpty();
    Set<String> wrong = new TreeSet<>();
    named.forEach(
        (id, histories) -> {
          Set<String> unnamed = new TreeSet<>(replayed.get(id));
          unnamed.removeAll(histories);
          Set<String> notTaking = new TreeSet<>(histories);
          notTaking.removeAll(replayed.get(id));
          if (!unnamed.isEmpty())
            wrong.add(id + ": old branch replayed by " + unnamed + ", unnamed");
          if (!notTaking.isEmpty())
            wrong.add(id + ": names " + notTaking + ", which take the new branch or never ask");
        });
    assertThat(wrong).isEmpty();
  }
}
