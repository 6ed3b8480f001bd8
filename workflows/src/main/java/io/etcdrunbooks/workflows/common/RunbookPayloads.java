package io.etcdrunbooks.workflows.common;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.temporal.api.common.v1.Payload;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.converter.DataConverterException;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.common.converter.JacksonJsonPayloadConverter;
import io.temporal.common.converter.PayloadConverter;
import io.temporal.payload.context.ActivitySerializationContext;
import io.temporal.payload.context.SerializationContext;
import io.temporal.worker.WorkflowImplementationOptions;
import java.lang.reflect.Type;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import javax.annotation.Nonnull;

/**
 * How runbooks read JSON: strictly. A run started from the Web UI or the Temporal CLI carries JSON
 * typed by hand, and Jackson's defaults would read {@code "dryRun":null} as {@code false} (a real
 * run) and fail the first workflow task on a misspelt field, which Temporal then retries until
 * someone terminates the run. Here a null or a string for a yes/no or a number is refused like an
 * unknown field, and either fails the run at once ({@link InputRejected}, a fail-workflow type of
 * every runbook), naming the field, before any step. Only inputs that reach workflow code this way
 * fail the run: an update's input is refused by its validator, a signal's is dropped by the SDK,
 * and an activity's result (written by our own code) still fails only the workflow task, so that a
 * worker deployed with an incompatible change can be rolled back without losing the runs in flight.
 */
public final class RunbookPayloads {

  private RunbookPayloads() {}

  /** The run's input (or an update's) does not fit the runbook's request type. */
  public static final class InputRejected extends DataConverterException {
    private static final long serialVersionUID = 1L;

    InputRejected(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** Temporal's default converters, with strict JSON in place of the lenient one. */
  public static DefaultDataConverter converter() {
    return DefaultDataConverter.newDefaultInstance()
        .withPayloadConverterOverrides(new StrictJson(null));
  }

  /** A client's options with {@link #converter()}: the worker's, the API's and the tests'. */
  public static WorkflowClientOptions.Builder clientOptions() {
    return WorkflowClientOptions.newBuilder().setDataConverter(converter());
  }

  /** What every runbook is registered with: a rejected input fails the run, not its task. */
  public static WorkflowImplementationOptions workflowOptions() {
    return WorkflowImplementationOptions.newBuilder()
        .setFailWorkflowExceptionTypes(InputRejected.class)
        .build();
  }

  static ObjectMapper strictMapper() {
    ObjectMapper mapper =
        JacksonJsonPayloadConverter.newDefaultObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .registerModule(new NullRefusingPrimitives());
    // "dryRun":"false" is a typo of intent, not a value: refused like the API refuses it
    for (LogicalType type : List.of(LogicalType.Boolean, LogicalType.Integer)) {
      mapper.coercionConfigFor(type).setCoercion(CoercionInputShape.String, CoercionAction.Fail);
    }
    return mapper;
  }

  private static final class StrictJson implements PayloadConverter {
    private static final JacksonJsonPayloadConverter JSON =
        new JacksonJsonPayloadConverter(strictMapper());
    private final SerializationContext context;

    StrictJson(SerializationContext context) {
      this.context = context;
    }

    @Override
    public String getEncodingType() {
      return JSON.getEncodingType();
    }

    @Override
    public Optional<Payload> toData(Object value) {
      return JSON.toData(value);
    }

    @Override
    public <T> T fromData(Payload content, Class<T> valueClass, Type valueType) {
      try {
        return JSON.fromData(content, valueClass, valueType);
      } catch (DataConverterException e) {
        if (context instanceof ActivitySerializationContext) throw e;
        throw new InputRejected(describe(valueClass, e), e);
      }
    }

    @Override
    public @Nonnull PayloadConverter withContext(@Nonnull SerializationContext context) {
      return new StrictJson(context);
    }

    private static String describe(Class<?> type, DataConverterException e) {
      String next =
          "; nothing was done. Correct the input and start the run again (docs/temporal-cli.md"
              + " shows each runbook's input)";
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof UnrecognizedPropertyException u) {
          return "the input has a field %s does not know: '%s' (its fields: %s)%s"
              .formatted(
                  type.getSimpleName(),
                  path(u),
                  u.getKnownPropertyIds().stream().map(String::valueOf).sorted().toList(),
                  next);
        }
        if (t instanceof MismatchedInputException m) {
          String why = m.getOriginalMessage();
          int hint = why.indexOf(" (set DeserializationConfig");
          return "the input's '%s' does not fit %s: %s%s"
              .formatted(
                  path(m), type.getSimpleName(), hint < 0 ? why : why.substring(0, hint), next);
        }
      }
      return "the input cannot be read as %s: %s%s"
          .formatted(type.getSimpleName(), e.getMessage(), next);
    }

    private static String path(MismatchedInputException m) {
      return m.getPath().stream()
          .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
          .collect(Collectors.joining("."));
    }
  }
}
