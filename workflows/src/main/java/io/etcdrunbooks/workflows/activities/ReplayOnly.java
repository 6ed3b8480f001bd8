package io.etcdrunbooks.workflows.activities;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * An activity method that runs started since a change no longer call: only runs whose history has
 * no marker for {@link #changeId} do, on the old branch of that change (in replay, and for the rest
 * of a run in flight when the worker was deployed). Its implementation and registration stay until
 * that branch is retired (docs/development/patches.md); no new code calls it.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface ReplayOnly {

  /** The change id, registered as a Patch, whose new branch stopped calling the method. */
  String changeId();

  /** The day that change shipped (yyyy-mm-dd): no run started since calls the method. */
  String since();
}
