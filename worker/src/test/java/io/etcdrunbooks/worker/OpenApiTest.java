package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.api.testing.TestTokens;
import io.etcdrunbooks.testkit.Ports;
import io.micronaut.context.ApplicationContext;
import io.micronaut.runtime.server.EmbeddedServer;
import io.micronaut.web.router.Router;
import io.micronaut.web.router.UriRouteInfo;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * docs/openapi.yaml lists exactly the routes the API has (method and path, from Micronaut's
 * router), and the API serves that same file without a token.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class OpenApiTest {

  @TempDir Path dir;

  @Test
  void theServedDocumentIsTheCheckedInOneAndListsEveryRouteAndNoOther() throws Exception {
    Path tokens =
        TestTokens.write(
            dir.resolve("api-tokens.yaml"), TestTokens.Token.of("dashboard", "viewer"));
    try (ApplicationContext context =
        Main.start(
            List.of("api"),
            Map.of(
                "runbooks.api.tokens-file", tokens.toString(),
                "runbooks.inventory", dir.resolve("inventory.yaml").toString(),
                "temporal.address", "",
                "temporal.embedded-port", Ports.free(),
                "micronaut.server.port", Ports.free()))) {
      String api = context.getBean(EmbeddedServer.class).getURL().toString();
      HttpResponse<String> served =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create(api + "/openapi.yaml")).build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(served.statusCode()).isEqualTo(200);
      String checkedIn = Files.readString(Path.of("..", "docs", "openapi.yaml"));
      assertThat(served.body()).isEqualTo(checkedIn);

      Set<String> routes =
          context
              .getBean(Router.class)
              .uriRoutes()
              .map(r -> (UriRouteInfo<?, ?>) r)
              .filter(
                  r ->
                      !r.getHttpMethodName()
                          .equals("HEAD")) // Micronaut answers HEAD for every GET on its own
              .map(
                  r ->
                      r.getHttpMethodName().toLowerCase(Locale.ROOT)
                          + " "
                          + r.getUriMatchTemplate().toPathString())
              .collect(Collectors.toCollection(TreeSet::new));
      Map<String, Map<String, Object>> paths =
          new Yaml(withAliases())
              .<Map<String, Map<String, Map<String, Object>>>>load(checkedIn)
              .get("paths");
      Set<String> documented = new TreeSet<>();
      paths.forEach(
          (path, operations) ->
              operations.keySet().forEach(method -> documented.add(method + " " + path)));
      assertThat(documented).as("docs/openapi.yaml against the API's routes").isEqualTo(routes);
    }
  }

  /** Every route shares its error answers by alias: more than SnakeYAML's default 50. */
  private static LoaderOptions withAliases() {
    LoaderOptions options = new LoaderOptions();
    options.setMaxAliasesForCollections(500);
    return options;
  }
}
