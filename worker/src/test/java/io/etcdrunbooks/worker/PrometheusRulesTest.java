package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.worker.PrometheusTools.PanelQuery;
import io.etcdrunbooks.worker.PrometheusTools.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The alert rules and the dashboard shipped in deploy/, checked by Debian's promtool: the rules
 * load, each alert fires on the series of deploy/prometheus/etcd-runbooks-rules.test.yaml that
 * should fire it and on no other, every dashboard query parses, and every series they read is one
 * the worker exports, as docs/configuration.md lists them. (RunbookControlTest evaluates the
 * dashboard's queries on a real Prometheus that scraped a worker.)
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class PrometheusRulesTest {

  private static final Pattern SERIES = Pattern.compile("\\betcd_runbooks_[a-z0-9_]+");

  @TempDir Path dir;

  @Test
  void theAlertRulesLoadAndEachFiresOnlyOnItsSeries() throws Exception {
    Run check = PrometheusTools.promtool("check", "rules", PrometheusTools.RULES.toString());
    assertThat(check.exit()).as(check.output()).isZero();
    Run tests = PrometheusTools.promtool("test", "rules", "etcd-runbooks-rules.test.yaml");
    assertThat(tests.exit()).as(tests.output()).isZero();
    assertThat(tests.output()).contains("SUCCESS");
  }

  @Test
  void everyAlertHasATestThatFiresItAndOneThatDoesNot() throws Exception {
    String rules = Files.readString(PrometheusTools.RULES);
    String tests = Files.readString(PrometheusTools.RULE_TESTS);
    Matcher alert = Pattern.compile("- alert: (\\w+)").matcher(rules);
    Set<String> alerts = new TreeSet<>();
    while (alert.find()) alerts.add(alert.group(1));
    assertThat(alerts).hasSizeGreaterThanOrEqualTo(10);
    for (String name : alerts) {
      Matcher cases =
          Pattern.compile("alertname: " + name + "\\n\\s+exp_alerts:(\\s*\\[\\])?").matcher(tests);
      boolean fires = false;
      boolean silent = false;
      while (cases.find()) {
        if (cases.group(1) == null) fires = true;
        else silent = true;
      }
      assertThat(fires).as("a test where %s fires", name).isTrue();
      // a drill's or a certificate's silent case is another series in the same evaluation
      if (!name.startsWith("EtcdRestoreDrill") && !name.endsWith("VerySoon"))
        assertThat(silent).as("a test where %s does not fire", name).isTrue();
    }
  }

  @Test
  void everyDashboardQueryParsesAndReadsOnlyDocumentedSeries() throws Exception {
    List<PanelQuery> queries = PrometheusTools.dashboardQueries();
    assertThat(queries).hasSizeGreaterThanOrEqualTo(10);
    // promtool parses each query as the expression of a recording rule
    StringBuilder rules = new StringBuilder("groups:\n  - name: dashboard\n    rules:\n");
    for (int i = 0; i < queries.size(); i++) {
      rules
          .append("      - record: dashboard:query")
          .append(i)
          .append("\n        expr: '")
          .append(queries.get(i).evaluable("1h").replace("'", "''"))
          .append("'\n");
    }
    Path file = dir.resolve("dashboard-queries.yaml");
    Files.writeString(file, rules);
    Run check = PrometheusTools.promtool("check", "rules", file.toString());
    assertThat(check.exit()).as(check.output() + "\n" + rules).isZero();

    Set<String> documented = seriesIn(Files.readString(Path.of("..", "docs", "configuration.md")));
    Set<String> read = new TreeSet<>();
    for (PanelQuery q : queries) read.addAll(seriesIn(q.expr()));
    read.addAll(seriesIn(Files.readString(PrometheusTools.RULES)));
    assertThat(documented).as("docs/configuration.md's metrics").containsAll(read);
  }

  /** The etcd_runbooks_ series named in a text, without their histogram suffixes. */
  private static Set<String> seriesIn(String text) {
    Set<String> names = new TreeSet<>();
    Matcher m = SERIES.matcher(text);
    while (m.find()) names.add(m.group().replaceAll("_(bucket|count|sum|max)$", ""));
    return names;
  }
}
