package io.etcdrunbooks.worker;

import io.etcdrunbooks.testkit.EmbeddedTemporal;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Property;
import io.micronaut.context.annotation.Replaces;
import io.micronaut.context.annotation.Requires;
import jakarta.inject.Singleton;

/**
 * The tests' Temporal: a context started with {@code temporal.embedded-port} (a test-only setting)
 * gets Temporal's in-memory test server on that port, in the test's JVM and closed with the
 * context, in place of the {@code temporal.address} the product requires.
 */
@Factory
@Requires(property = InMemoryTemporalEndpoint.PORT)
class InMemoryTemporalEndpoint {

  static final String PORT = "temporal.embedded-port";

  @Singleton
  @Bean(preDestroy = "close")
  EmbeddedTemporal embeddedTemporal(@Property(name = PORT) int port) {
    return EmbeddedTemporal.start(port);
  }

  @Singleton
  @Replaces(value = TemporalFactory.TemporalEndpoint.class, factory = TemporalFactory.class)
  TemporalFactory.TemporalEndpoint inMemory(EmbeddedTemporal server) {
    return new TemporalFactory.TemporalEndpoint(server.address(), true);
  }
}
