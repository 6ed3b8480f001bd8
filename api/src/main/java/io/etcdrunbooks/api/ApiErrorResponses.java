package io.etcdrunbooks.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import io.micronaut.context.annotation.Primary;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.server.exceptions.response.Error;
import io.micronaut.http.server.exceptions.response.ErrorContext;
import io.micronaut.http.server.exceptions.response.ErrorResponseProcessor;
import jakarta.inject.Singleton;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The answers Micronaut makes itself (no route: 404, wrong method: 405, body too large: 413, wrong
 * content type: 415, a parameter it cannot bind: 400) have the body every other error of this API
 * has, {@link ApiError}, in its words. A 5xx never carries an exception's text: it may name files,
 * hosts or worse; the log has it.
 */
@Singleton
@Primary
@Replaces(ErrorResponseProcessor.class)
final class ApiErrorResponses implements ErrorResponseProcessor<ApiError> {

  @Override
  public MutableHttpResponse<ApiError> processResponse(
      ErrorContext context, MutableHttpResponse<?> response) {
    String call = context.getRequest().getMethod() + " " + context.getRequest().getPath();
    int code = response.code();
    String message;
    if (code == HttpStatus.NOT_FOUND.getCode()) {
      message = "no such route: " + call + ". The API's routes are in GET /openapi.yaml";
    } else if (code == HttpStatus.METHOD_NOT_ALLOWED.getCode()) {
      message =
          call
              + ": this path takes "
              + response.getHeaders().get("Allow")
              + ", not "
              + context.getRequest().getMethod();
    } else if (code == HttpStatus.REQUEST_ENTITY_TOO_LARGE.getCode()) {
      message = "the body of " + call + " is larger than micronaut.server.max-request-size allows";
    } else if (code == HttpStatus.UNSUPPORTED_MEDIA_TYPE.getCode()) {
      message =
          call
              + " takes a JSON body: send Content-Type: application/json, got "
              + context.getRequest().getContentType().map(MediaType::toString).orElse("none");
    } else if (code == HttpStatus.BAD_REQUEST.getCode() && jsonCause(context).isPresent()) {
      message = BodyErrors.message(context.getRequest(), jsonCause(context).get());
    } else if (code >= 500) {
      message = "internal error in " + call + "; the server's log has the cause";
    } else {
      message =
          context.getErrors().stream().map(Error::getMessage).collect(Collectors.joining("; "));
      if (message.isBlank()) message = HttpStatus.valueOf(code).getReason() + ": " + call;
    }
    return response.contentType(MediaType.APPLICATION_JSON_TYPE).body(new ApiError(message));
  }

  /**
   * A body the JSON parser refused (not well-formed, a field twice, a limit broken), found in the
   * cause chain.
   */
  private static Optional<Throwable> jsonCause(ErrorContext context) {
    for (Throwable t = context.getRootCause().orElse(null); t != null; t = t.getCause()) {
      if (t instanceof JsonProcessingException) return Optional.of(t);
      if (t.getCause() == t) break;
    }
    return Optional.empty();
  }
}
