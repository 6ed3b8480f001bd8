package io.etcdrunbooks.api;

import io.etcdrunbooks.workflows.RunbookDefinition;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;

/**
 * What the generic start path reads of any runbook's request record by name: the cluster (or fleet)
 * it acts on, and whether it is a dry run; and the record with the target its endpoint's path
 * names.
 */
final class RunbookRequests {

  private static final String DRY_RUN = "dryRun";

  private RunbookRequests() {}

  /** The cluster or fleet the request names; empty when it names none. */
  static String target(RunbookDefinition<?> runbook, Object request) {
    Object value = component(request, runbook.target().field());
    return value == null ? "" : value.toString();
  }

  /** Whether the request asks for a dry run (false for runbooks that have none). */
  static boolean dryRun(Object request) {
    return Arrays.stream(request.getClass().getRecordComponents())
            .anyMatch(c -> c.getName().equals(DRY_RUN))
        && Boolean.TRUE.equals(component(request, DRY_RUN));
  }

  /**
   * The body with the target the path names; a body that names another one is refused, so a request
   * is never started on a cluster the caller did not mean.
   */
  static <R> R onTarget(RunbookDefinition<R> runbook, R body, String inPath) {
    String field = runbook.target().field();
    String inBody = target(runbook, body);
    if (!inBody.isBlank() && !inBody.equals(inPath)) {
      throw new IllegalArgumentException(
          ("the body names %s '%s' but the path names '%s': leave \"%s\" out of the body, or make"
                  + " them agree")
              .formatted(field, inBody, inPath, field));
    }
    RecordComponent[] components = body.getClass().getRecordComponents();
    Object[] values = new Object[components.length];
    for (int i = 0; i < components.length; i++) {
      values[i] =
          components[i].getName().equals(field) ? inPath : component(body, components[i].getName());
    }
    try {
      Constructor<?> canonical =
          body.getClass()
              .getDeclaredConstructor(
                  Arrays.stream(components).map(RecordComponent::getType).toArray(Class<?>[]::new));
      return runbook.request().cast(canonical.newInstance(values));
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof RuntimeException r) throw r;
      throw new IllegalStateException(e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(runbook.request() + " is not a public record", e);
    }
  }

  private static Object component(Object request, String name) {
    try {
      for (RecordComponent c : request.getClass().getRecordComponents()) {
        if (c.getName().equals(name)) return c.getAccessor().invoke(request);
      }
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(request.getClass() + " is not a public record", e);
    }
    throw new IllegalStateException(request.getClass() + " has no field " + name);
  }
}
