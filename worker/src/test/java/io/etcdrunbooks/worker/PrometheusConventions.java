package io.etcdrunbooks.worker;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks the project's series in a scrape (Prometheus text format) against Prometheus' naming
 * conventions (prometheus.io/docs/practices/naming): snake_case names and labels, base units
 * (seconds, bytes), {@code _total} on counters and only there, histograms with their {@code
 * _bucket} series, and no {@code cluster} label (multi-cluster Prometheus setups add their own:
 * ours is {@code etcd_cluster}).
 */
final class PrometheusConventions {

  static final String PREFIX = "etcd_runbooks_";

  private static final Pattern SNAKE = Pattern.compile("[a-z][a-z0-9]*(_[a-z0-9]+)*");
  private static final Pattern TYPE = Pattern.compile("# TYPE (\\S+) (\\S+)");
  private static final Pattern SAMPLE =
      Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})? \\S+.*");
  private static final Pattern LABEL =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"(?:[^\"\\\\]|\\\\.)*\"");
  private static final Pattern NOT_BASE_UNIT =
      Pattern.compile(
          "_(milliseconds|millis|ms|microseconds|nanoseconds|minutes|hours|days|kilobytes|megabytes"
              + "|gigabytes|kb|mb|gb|percent)(_|$)");
  private static final Pattern TIME_WORD =
      Pattern.compile("(^|_)(duration|age|latency|time|timestamp|expiry|wait)(_|$)");

  private PrometheusConventions() {}

  /** The project's metric families in the scrape: name -> type. */
  static Map<String, String> families(String scrape) {
    Map<String, String> types = new LinkedHashMap<>();
    for (String line : scrape.split("\n")) {
      Matcher m = TYPE.matcher(line);
      if (m.matches() && m.group(1).startsWith(PREFIX)) types.put(m.group(1), m.group(2));
    }
    return types;
  }

  /** Every way the project's series in {@code scrape} break the conventions; empty if none. */
  static List<String> violations(String scrape) {
    Map<String, String> types = families(scrape);
    Set<String> withBuckets = new LinkedHashSet<>();
    List<String> found = new ArrayList<>();
    for (String line : scrape.split("\n")) {
      if (line.startsWith("#") || !line.startsWith(PREFIX)) continue;
      Matcher m = SAMPLE.matcher(line);
      if (!m.matches()) {
        found.add("not a sample line: " + line);
        continue;
      }
      String name = m.group(1);
      Set<String> labels = new LinkedHashSet<>();
      if (m.group(3) != null) {
        Matcher l = LABEL.matcher(m.group(3));
        while (l.find()) labels.add(l.group(1));
      }
      if (name.endsWith("_bucket") && labels.contains("le"))
        withBuckets.add(name.substring(0, name.length() - "_bucket".length()));
      for (String label : labels) {
        if (label.equals("cluster"))
          found.add(name + ": label `cluster` (use etcd_cluster; setups add their own `cluster`)");
        else if (!SNAKE.matcher(label).matches())
          found.add(name + ": label " + label + " not snake_case");
      }
    }
    for (Map.Entry<String, String> family : types.entrySet()) {
      String name = family.getKey();
      String type = family.getValue();
      if (!SNAKE.matcher(name).matches()) found.add(name + ": not snake_case");
      if (NOT_BASE_UNIT.matcher(name).find())
        found.add(name + ": not in a base unit (seconds, bytes)");
      String base = name.endsWith("_max") ? name.substring(0, name.length() - 4) : name;
      if (TIME_WORD.matcher(base).find() && !base.endsWith("_seconds"))
        found.add(name + ": a time without its unit: end it in _seconds");
      if (type.equals("counter") != name.endsWith("_total"))
        found.add(name + ": " + type + (type.equals("counter") ? " without" : " with") + " _total");
      if (type.equals("histogram") && !withBuckets.contains(name))
        found.add(name + ": a histogram without _bucket series");
      if (type.equals("summary") || type.equals("untyped"))
        found.add(name + ": " + type + ": export a histogram, a counter or a gauge");
    }
    return found;
  }
}
