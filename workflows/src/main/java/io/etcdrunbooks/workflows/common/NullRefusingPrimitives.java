package io.etcdrunbooks.workflows.common;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.deser.std.NumberDeserializers;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.module.SimpleModule;
import java.io.IOException;

/**
 * Yes/no and number fields of runbook inputs read strictly: an explicit {@code null} is refused, a
 * field left out keeps its default ({@code false}, {@code 0}). Jackson's own switches do both or
 * neither (FAIL_ON_NULL_FOR_PRIMITIVES and {@code Nulls.FAIL} refuse a left-out field too), and the
 * documented inputs and older histories leave fields out.
 */
final class NullRefusingPrimitives extends SimpleModule {

  private static final long serialVersionUID = 1L;

  NullRefusingPrimitives() {
    super("null-refusing-primitives");
    add(boolean.class, false, "true or false");
    add(int.class, 0, "a whole number");
    add(long.class, 0L, "a whole number");
  }

  private <T> void add(Class<T> type, T absent, String expected) {
    addDeserializer(type, new Strict<>(type, absent, expected));
  }

  private static final class Strict<T> extends StdDeserializer<T> {
    private static final long serialVersionUID = 1L;
    private final transient JsonDeserializer<?> standard;
    private final T absent;
    private final String expected;

    Strict(Class<T> type, T absent, String expected) {
      super(type);
      this.standard = NumberDeserializers.find(type, type.getName());
      this.absent = absent;
      this.expected = expected;
    }

    @Override
    @SuppressWarnings("unchecked")
    public T deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
      return (T) standard.deserialize(p, ctxt);
    }

    @Override
    public T getNullValue(DeserializationContext ctxt) throws JsonMappingException {
      return ctxt.reportInputMismatch(
          this, "null where %s is expected: give a value or leave the field out", expected);
    }

    @Override
    public Object getAbsentValue(DeserializationContext ctxt) {
      return absent;
    }
  }
}
