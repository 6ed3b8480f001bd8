package io.etcdrunbooks.testkit;

/**
 * A Temporal server the tests, demo and bench start: Temporal's Java test server in this JVM
 * ({@link EmbeddedTemporal}) or the real one ({@link TemporalDevServer}).
 */
public interface TemporalServer extends AutoCloseable {

  /** Its frontend, host:port on 127.0.0.1. */
  String address();

  @Override
  void close();
}
