package io.etcdrunbooks.api;

import io.micronaut.context.annotation.Requires;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Produces;
import io.micronaut.http.server.exceptions.ExceptionHandler;
import jakarta.inject.Singleton;
import java.security.SecureRandom;
import java.util.HexFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Any exception no other handler answers (a bug, a dependency that fails, a file that cannot be
 * read) is answered {@code 500} with a generic {@link ApiError} and a random reference; the log
 * line carries the same reference and the exception. The exception's text never reaches the caller,
 * who may not even be authenticated: it can name files, hosts and internals. Exceptions with a
 * handler of their own (a body that does not bind, a route's own {@code @Error}) keep it: Micronaut
 * picks the handler closest to the exception's type, and this one is for {@link Throwable}.
 */
@Produces
@Singleton
@Requires(classes = {Throwable.class, ExceptionHandler.class})
public final class UnexpectedErrorHandler
    implements ExceptionHandler<Throwable, HttpResponse<ApiError>> {

  private static final Logger LOG = LoggerFactory.getLogger(UnexpectedErrorHandler.class);
  private static final SecureRandom RANDOM = new SecureRandom();

  @Override
  @SuppressWarnings(
      "rawtypes") // ExceptionHandler declares the request raw; HttpRequest<?> would not override it
  public HttpResponse<ApiError> handle(HttpRequest request, Throwable exception) {
    String reference = reference();
    LOG.error(
        "internal error, reference {}: {} {}",
        reference,
        request.getMethodName(),
        request.getPath(),
        exception);
    return HttpResponse.serverError(
        new ApiError("internal error; see the API's log, reference " + reference));
  }

  /** 12 hex digits: enough to find the one log line among a day's. */
  static String reference() {
    byte[] bytes = new byte[6];
    RANDOM.nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }
}
