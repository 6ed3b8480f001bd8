package io.etcdrunbooks.testkit;

import io.etcdrunbooks.workflows.common.RunbookSearchAttributes;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.temporal.api.operatorservice.v1.AddSearchAttributesRequest;
import io.temporal.internal.testservice.GRPCServerHelper;
import io.temporal.internal.testservice.TestServicesStarter;
import io.temporal.serviceclient.OperatorServiceStubs;
import io.temporal.serviceclient.OperatorServiceStubsOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Temporal's Java test server bound to 127.0.0.1 (TestServer.createPortBoundServer binds every
 * interface), for the tests and the tools' demo, bench and {@code temporal} commands; never part of
 * the product, which always connects to the {@code temporal.address} it is given. It keeps
 * everything in memory: workflows survive a worker restart but not the end of this server's
 * process.
 */
public final class EmbeddedTemporal implements TemporalServer {

  private final TestServicesStarter services;
  private final Server server;

  private EmbeddedTemporal(TestServicesStarter services, Server server) {
    this.services = services;
    this.server = server;
  }

  public static EmbeddedTemporal start(int port) {
    // Time skipping locked: runbooks wait on real processes, so the server's clock must be the wall
    // clock.
    TestServicesStarter services = new TestServicesStarter(true, 0);
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), port),
            InsecureServerCredentials.create());
    GRPCServerHelper.registerServicesAndHealthChecks(services.getServices(), builder);
    try {
      EmbeddedTemporal embedded = new EmbeddedTemporal(services, builder.build().start());
      try {
        embedded.registerSearchAttributes();
      } catch (RuntimeException e) {
        embedded.close();
        throw e;
      }
      return embedded;
    } catch (IOException e) {
      services.close();
      throw new UncheckedIOException(
          "cannot start the embedded Temporal server on 127.0.0.1:"
              + port
              + " (is the port taken?)",
          e);
    }
  }

  /**
   * The runbooks' search attributes, as an operator registers them on a real server: with
   * runbooks.search-attributes.enabled, runbooks carry them here too (the test server has no list
   * queries, so the cluster list still reads list-open and list-closed). Its visibility store is
   * one for every namespace.
   */
  private void registerSearchAttributes() {
    OperatorServiceStubs operator =
        OperatorServiceStubs.newServiceStubs(
            OperatorServiceStubsOptions.newBuilder()
                .setTarget(address())
                .validateAndBuildWithDefaults());
    try {
      AddSearchAttributesRequest.Builder request = AddSearchAttributesRequest.newBuilder();
      RunbookSearchAttributes.ALL.forEach(
          key -> request.putSearchAttributes(key.getName(), key.getValueType()));
      operator.blockingStub().addSearchAttributes(request.build());
    } finally {
      operator.shutdownNow();
    }
  }

  @Override
  public String address() {
    return "127.0.0.1:" + server.getPort();
  }

  @Override
  public void close() {
    server.shutdown();
    try {
      server.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    server.shutdownNow();
    services.close();
  }
}
