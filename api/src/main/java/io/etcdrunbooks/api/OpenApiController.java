package io.etcdrunbooks.api;

import io.etcdrunbooks.runtime.http.OwnAuthentication;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.http.annotation.Produces;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Serves docs/openapi.yaml (packed into the jar at build time) without a token, for API clients and
 * their tools.
 */
@Controller
public final class OpenApiController {

  static final String RESOURCE = "etcd-runbooks/openapi.yaml";

  private final String document;

  public OpenApiController() {
    try (InputStream in = OpenApiController.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null)
        throw new IllegalStateException(
            RESOURCE + " is missing from the class path: build the api module with Maven");
      document = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @OwnAuthentication("public: the API's documentation")
  @Get("/openapi.yaml")
  @Produces("application/yaml")
  public HttpResponse<String> openapi() {
    return HttpResponse.ok(document);
  }
}
