package io.etcdrunbooks.api.codec;

import io.micronaut.context.annotation.Value;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.server.HttpServerConfiguration;
import jakarta.inject.Singleton;
import java.util.List;

/**
 * Micronaut answers 403 to any request from a browser page of another origin that reaches the
 * server by a localhost address (its guard against drive-by-localhost attacks), CORS or not. The
 * API listens on 127.0.0.1 by default, so a Temporal Web UI at https://temporal.example.com calling
 * the codec endpoint through a port-forward to localhost would be refused. When {@code
 * runbooks.codec.cors-origins} lists origins, the guard is turned off: every /api/v1 call needs a
 * bearer token the browser only sends when the page's own code adds it, and only the listed origins
 * may read an answer ({@link CodecCorsFilter}).
 */
@Singleton
public final class LocalhostCorsPassThrough
    implements BeanCreatedEventListener<HttpServerConfiguration.CorsConfiguration> {

  private final boolean codecCors;

  public LocalhostCorsPassThrough(
      @Value("${runbooks.codec.cors-origins:}") @Nullable List<String> origins) {
    this.codecCors = !CodecCorsFilter.parse(origins).isEmpty();
  }

  @Override
  public HttpServerConfiguration.CorsConfiguration onCreated(
      BeanCreatedEvent<HttpServerConfiguration.CorsConfiguration> event) {
    HttpServerConfiguration.CorsConfiguration cors = event.getBean();
    if (codecCors) cors.setLocalhostPassThrough(true);
    return cors;
  }
}
