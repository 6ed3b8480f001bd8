package io.etcdrunbooks.api.codec;

import io.etcdrunbooks.api.ApiError;
import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.order.Ordered;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Lets the Temporal Web UI, served from another origin, call the codec endpoint from the browser:
 * answers the CORS preflight of the origins in {@code runbooks.codec.cors-origins} (exact origins;
 * none: no CORS), and marks their answers readable by them. Runs before {@link
 * io.etcdrunbooks.api.auth.ApiAuthFilter}: a preflight carries no token, and the 401 of a POST
 * without one must still reach the UI.
 */
@ServerFilter("/api/v1/codec/**")
public final class CodecCorsFilter implements Ordered {

  /**
   * What the UI sends: its JSON body, the namespace, and its access token when "pass access token"
   * is on.
   */
  private static final String ALLOWED_HEADERS = "Authorization, Content-Type, X-Namespace";

  private static final String PREFLIGHT_CACHE_SECONDS = "600";

  private final Set<String> origins;

  public CodecCorsFilter(@Value("${runbooks.codec.cors-origins:}") @Nullable List<String> origins) {
    this.origins = parse(origins);
  }

  static Set<String> parse(@Nullable List<String> configured) {
    Set<String> origins =
        (configured == null ? List.<String>of() : configured)
            .stream()
                .flatMap(o -> List.of(o.split(",")).stream())
                .map(String::strip)
                .filter(o -> !o.isEmpty())
                .map(
                    o ->
                        (o.endsWith("/") ? o.substring(0, o.length() - 1) : o)
                            .toLowerCase(Locale.ROOT)) // as browsers send it
                .collect(Collectors.toUnmodifiableSet());
    for (String origin : origins) {
      if (!origin.matches("https?://[^/\\s*]+")) {
        throw new IllegalArgumentException(
            "runbooks.codec.cors-origins: '"
                + origin
                + "' is not an origin; list the exact"
                + " origins of the Temporal Web UI, such as https://temporal.example.com or http://localhost:8233 ('*' is not accepted)");
      }
    }
    return origins;
  }

  @Override
  public int getOrder() {
    return -100; // before ApiAuthFilter (0)
  }

  @RequestFilter
  @Nullable
  public HttpResponse<?> preflight(HttpRequest<?> request) {
    if (request.getMethod() != HttpMethod.OPTIONS
        || !request.getHeaders().contains(HttpHeaders.ACCESS_CONTROL_REQUEST_METHOD)) {
      return null;
    }
    String origin = request.getHeaders().getOrigin().orElse("");
    if (!origins.contains(origin)) {
      return HttpResponse.status(HttpStatus.FORBIDDEN)
          .body(
              new ApiError(
                  "origin '"
                      + origin
                      + "' may not call the codec endpoint from a browser; add it to runbooks.codec.cors-origins"));
    }
    return allow(HttpResponse.noContent(), origin)
        .header(HttpHeaders.ACCESS_CONTROL_ALLOW_METHODS, "POST")
        .header(HttpHeaders.ACCESS_CONTROL_ALLOW_HEADERS, ALLOWED_HEADERS)
        .header(HttpHeaders.ACCESS_CONTROL_MAX_AGE, PREFLIGHT_CACHE_SECONDS);
  }

  @ResponseFilter
  public void allowOrigin(HttpRequest<?> request, MutableHttpResponse<?> response) {
    request
        .getHeaders()
        .getOrigin()
        .filter(origins::contains)
        .ifPresent(origin -> allow(response, origin));
  }

  private static <T> MutableHttpResponse<T> allow(MutableHttpResponse<T> response, String origin) {
    // set, not add: the response filter also sees the preflight answer, and browsers refuse a
    // repeated Allow-Origin.
    // Allow-Credentials only lets the UI's "include cross-origin credentials" setting work; the API
    // reads no cookies.
    response.getHeaders().set(HttpHeaders.ACCESS_CONTROL_ALLOW_ORIGIN, origin);
    response.getHeaders().set(HttpHeaders.ACCESS_CONTROL_ALLOW_CREDENTIALS, "true");
    response.getHeaders().set(HttpHeaders.VARY, HttpHeaders.ORIGIN);
    return response;
  }
}
