package io.etcdrunbooks.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.exc.InvalidNullException;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.micronaut.context.event.BeanCreatedEvent;
import io.micronaut.context.event.BeanCreatedEventListener;
import jakarta.inject.Singleton;
import java.io.IOException;
import java.util.function.Function;

/**
 * Request bodies start destructive runbooks, so they are read exactly as written: {@code "dryRun":
 * null}, {@code "dryRun": "false"}, {@code "dryRun": 1}, {@code "memberTimeoutSeconds": 1.9},
 * {@code "targetVersion": ["3.5.30"]}, a body wrapped in a one-element array and a field given
 * twice are each refused with 400 naming the field ({@link BodyErrors}), where Jackson's lenient
 * defaults would take a guess (and {@code null} for a boolean would have become {@code false}: a
 * real run instead of a dry run). A field left out still takes its default.
 */
@Singleton
final class StrictJson implements BeanCreatedEventListener<ObjectMapper> {

  @Override
  public ObjectMapper onCreated(BeanCreatedEvent<ObjectMapper> event) {
    ObjectMapper mapper = event.getBean();
    mapper.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    mapper.enable(
        DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES,
        DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    mapper.disable(
        DeserializationFeature.UNWRAP_SINGLE_VALUE_ARRAYS,
        DeserializationFeature.ACCEPT_SINGLE_VALUE_AS_ARRAY,
        DeserializationFeature.ACCEPT_FLOAT_AS_INT,
        DeserializationFeature.ACCEPT_EMPTY_STRING_AS_NULL_OBJECT,
        DeserializationFeature.ACCEPT_EMPTY_ARRAY_AS_NULL_OBJECT);
    for (CoercionInputShape shape : CoercionInputShape.values()) {
      mapper.coercionConfigFor(LogicalType.Textual).setCoercion(shape, CoercionAction.Fail);
      mapper.coercionConfigFor(LogicalType.POJO).setCoercion(shape, CoercionAction.Fail);
    }
    SimpleModule strict = new SimpleModule("etcd-runbooks-strict-primitives");
    strict.addDeserializer(
        boolean.class,
        new Primitive<>(
            boolean.class,
            false,
            JsonToken.VALUE_TRUE,
            JsonToken.VALUE_FALSE,
            p -> p.currentToken() == JsonToken.VALUE_TRUE));
    strict.addDeserializer(
        int.class,
        new Primitive<>(
            int.class,
            0,
            JsonToken.VALUE_NUMBER_INT,
            JsonToken.VALUE_NUMBER_INT,
            StrictJson::intValue));
    mapper.registerModule(strict);
    return mapper;
  }

  private static int intValue(JsonParser parser) {
    try {
      return parser.getIntValue();
    } catch (IOException e) {
      throw new IllegalArgumentException(e);
    }
  }

  /** A boolean or int field: only its own JSON token; null refused; left out, its default. */
  private static final class Primitive<T> extends StdScalarDeserializer<T> {
    private static final long serialVersionUID = 1L;

    private final T absent;
    private final JsonToken token;
    private final JsonToken otherToken;
    private final Function<JsonParser, T> read;

    Primitive(
        Class<T> type,
        T absent,
        JsonToken token,
        JsonToken otherToken,
        Function<JsonParser, T> read) {
      super(type);
      this.absent = absent;
      this.token = token;
      this.otherToken = otherToken;
      this.read = read;
    }

    @Override
    public T deserialize(JsonParser parser, DeserializationContext context) throws IOException {
      JsonToken t = parser.currentToken();
      if (t != token && t != otherToken) {
        return context.reportInputMismatch(this, "wrong JSON type for %s", handledType().getName());
      }
      try {
        return read.apply(parser);
      } catch (IllegalArgumentException e) {
        return context.reportInputMismatch(
            this, "number out of range for %s", handledType().getName());
      }
    }

    @Override
    public T getNullValue(DeserializationContext context) throws JsonMappingException {
      throw InvalidNullException.from(context, null, context.constructType(handledType()));
    }

    @Override
    public Object getAbsentValue(DeserializationContext context) {
      return absent;
    }
  }
}
