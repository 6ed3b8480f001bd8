package io.etcdrunbooks.api;

import com.fasterxml.jackson.databind.JsonMappingException;
import io.micronaut.core.convert.exceptions.ConversionErrorException;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Error;
import java.util.stream.Collectors;

/**
 * A body that does not bind to the runbook's input (a misspelt field, text where a number goes, an array where an
 * object goes) is answered 400 with Jackson's own words and the field's path, not with Java class names.
 */
@Controller
public final class BodyErrors {

  @Error(global = true, exception = ConversionErrorException.class)
  public HttpResponse<ApiError> unbindable(HttpRequest<?> request, ConversionErrorException e) {
    Throwable cause = e.getConversionError().getCause();
    String why = cause instanceof JsonMappingException json ? describe(json) : e.getConversionError().getCause().getMessage();
    return HttpResponse.badRequest(new ApiError("the JSON body is not what " + request.getMethod() + " " + request.getPath()
        + " takes: " + why + ". See docs/openapi.yaml for its fields"));
  }

  private static String describe(JsonMappingException json) {
    String field = json.getPath().stream()
        .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
        .collect(Collectors.joining("."));
    String message = json.getOriginalMessage().replaceAll("`[a-z]+(\\.[a-zA-Z0-9_$]+)+`", "the runbook's input")
        .replaceAll("\\s*\\(class [^)]*\\)", "");
    return (field.isEmpty() ? "" : "field '" + field + "': ") + message;
  }
}
