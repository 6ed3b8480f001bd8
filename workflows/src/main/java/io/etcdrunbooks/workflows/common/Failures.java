package io.etcdrunbooks.workflows.common;

import io.temporal.failure.ApplicationFailure;
import io.temporal.failure.TemporalFailure;

/** Turns activity failures into the message of their root cause. */
public final class Failures {

  private Failures() {}

  public static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    if (t instanceof ApplicationFailure af) {
      return af.getOriginalMessage();
    }
    if (t instanceof TemporalFailure tf) {
      return tf.getOriginalMessage();
    }
    return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
  }

  /** The type of the innermost ApplicationFailure, or empty. */
  public static String rootType(Throwable e) {
    String type = "";
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ApplicationFailure af) type = af.getType();
    }
    return type;
  }
}
