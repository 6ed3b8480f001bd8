package io.etcdrunbooks.activities.migrate;

import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Keys counted by their first two path segments: "/registry/pods/default/web" -> /registry/pods.
 */
final class Prefixes {

  private Prefixes() {}

  static Map<String, Long> count(Stream<String> keys) {
    return countBy(keys, Prefixes::of);
  }

  static Map<String, Long> countBy(Stream<String> keys, Function<String, String> prefix) {
    return keys.collect(Collectors.groupingBy(prefix, TreeMap::new, Collectors.counting()));
  }

  static String of(String key) {
    int second = key.indexOf('/', 1);
    if (second < 0) return key;
    int third = key.indexOf('/', second + 1);
    return third < 0 ? key.substring(0, second) : key.substring(0, third);
  }
}
