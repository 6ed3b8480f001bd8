package io.etcdrunbooks.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidNullException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import io.micronaut.core.convert.exceptions.ConversionErrorException;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Error;
import io.micronaut.http.codec.CodecException;
import java.util.Collection;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A body that does not bind to the runbook's input is answered 400 naming the field, what it must
 * be and what it got, in this API's words, never Jackson's (no class, feature or constraint names).
 */
@Controller
public final class BodyErrors {

  @Error(global = true, exception = ConversionErrorException.class)
  public HttpResponse<ApiError> unbindable(HttpRequest<?> request, ConversionErrorException e) {
    return refuse(request, e.getConversionError().getCause());
  }

  /** Bodies that are not JSON at all, or break the parser's limits, come as codec errors. */
  @Error(global = true, exception = CodecException.class)
  public HttpResponse<ApiError> unreadable(HttpRequest<?> request, CodecException e) {
    return refuse(request, e.getCause() == null ? e : e.getCause());
  }

  private static HttpResponse<ApiError> refuse(HttpRequest<?> request, Throwable cause) {
    return HttpResponse.badRequest(new ApiError(message(request, cause)));
  }

  static String message(HttpRequest<?> request, Throwable cause) {
    return "the JSON body is not what "
        + request.getMethod()
        + " "
        + request.getPath()
        + " takes: "
        + describe(cause)
        + ". See docs/openapi.yaml for its fields";
  }

  static String describe(Throwable cause) {
    if (cause instanceof UnrecognizedPropertyException unknown) {
      return "field '"
          + path(unknown)
          + "' is not one of its fields "
          + unknown.getKnownPropertyIds();
    }
    if (cause instanceof InvalidNullException) {
      return "field '"
          + path((JsonMappingException) cause)
          + "' is null; give "
          + expected(((InvalidNullException) cause).getTargetType())
          + ", or leave the field out for its default";
    }
    if (cause instanceof MismatchedInputException mismatch) {
      String field = path(mismatch);
      String got = got(mismatch);
      return (field.isEmpty() ? "the body" : "field '" + field + "'")
          + " must be "
          + expected(mismatch.getTargetType())
          + (got.isEmpty() ? "" : ", got " + got);
    }
    if (cause instanceof StreamReadException read
        && read.getMessage() != null
        && read.getMessage().startsWith("Duplicate field")) {
      return "a field is given twice ("
          + read.getOriginalMessage().replace("Duplicate field", "field").strip()
          + ")";
    }
    if (cause instanceof JsonProcessingException json
        && json.getClass().getSimpleName().contains("Constraints")) {
      return "it breaks a limit on JSON bodies (a number, string or name too long, or nesting too deep)";
    }
    if (cause instanceof StreamReadException) {
      return "it is not well-formed JSON";
    }
    return "it cannot be read as its input";
  }

  private static String path(JsonMappingException json) {
    return json.getPath().stream()
        .map(ref -> ref.getFieldName() != null ? ref.getFieldName() : "[" + ref.getIndex() + "]")
        .collect(Collectors.joining("."));
  }

  private static String expected(Class<?> type) {
    if (type == null) return "of another type";
    if (type == boolean.class || type == Boolean.class) return "true or false";
    if (type == int.class || type == Integer.class || type == long.class || type == Long.class)
      return "a whole number";
    if (type == String.class) return "a string";
    if (Collection.class.isAssignableFrom(type) || type.isArray()) return "an array";
    if (Map.class.isAssignableFrom(type) || type.isRecord()) return "a JSON object";
    return "of another type";
  }

  /** What the body had where the field is, in JSON's words. */
  private static String got(MismatchedInputException e) {
    if (!(e.getProcessor() instanceof JsonParser parser)) return "";
    JsonToken token = parser.currentToken();
    if (token == null) return "";
    return switch (token) {
      case VALUE_STRING -> "a string";
      case VALUE_NUMBER_INT -> "a whole number";
      case VALUE_NUMBER_FLOAT -> "a decimal number";
      case VALUE_TRUE, VALUE_FALSE -> "a boolean";
      case VALUE_NULL -> "null";
      case START_ARRAY, END_ARRAY -> "an array";
      case START_OBJECT, END_OBJECT, FIELD_NAME -> "an object";
      default -> "";
    };
  }
}
