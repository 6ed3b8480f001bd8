package io.etcdrunbooks.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test class that starts real etcd processes (through a {@link Sandbox} or a worker JVM
 * that makes one). The build runs these in their own surefire execution after the fast tests of the
 * same module, and the fast execution refuses to start etcd, so a class that needs this mark and
 * lacks it fails instead of slowing the fast layer down.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag(RealEtcd.TAG)
public @interface RealEtcd {
  String TAG = "real-etcd";

  /** Set by the fast surefire execution: starting etcd there is a mistake in the test's tags. */
  String FORBIDDEN_PROPERTY = "etcd-runbooks.real-etcd.forbidden";
}
