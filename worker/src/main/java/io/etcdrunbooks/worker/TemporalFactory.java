package io.etcdrunbooks.worker;

import com.uber.m3.tally.Scope;
import io.etcdrunbooks.runtime.codec.AesGcmPayloadCodec;
import io.etcdrunbooks.secrets.SecretFiles;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.core.annotation.Nullable;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.converter.CodecDataConverter;
import io.temporal.common.converter.DefaultDataConverter;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import jakarta.inject.Singleton;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The connection to the configured Temporal cluster. */
@Factory
public class TemporalFactory {

  private static final Logger LOG = LoggerFactory.getLogger(TemporalFactory.class);

  /** Failure messages and stack traces name clusters, members and URLs too. */
  private static final boolean ENCODE_FAILURE_ATTRIBUTES = true;

  /**
   * The configured frontend. The product never starts a Temporal server of its own: without {@code
   * temporal.address} it refuses to start. (The tools' demo and bench run Temporal's test server in
   * their own process and pass its address.)
   */
  @Singleton
  public TemporalEndpoint temporalEndpoint(TemporalConfig config) {
    if (config.address() == null || config.address().isBlank()) {
      throw new IllegalStateException(
          "temporal.address (TEMPORAL_ADDRESS) is not set: set it to your Temporal frontend's"
              + " host:port, see docs/configuration.md. To try the runbooks without a Temporal"
              + " server, run the demo (bash deploy/scripts/demo.sh), which brings an in-memory one.");
    }
    return new TemporalEndpoint(config.address(), false);
  }

  @Singleton
  @Bean(preDestroy = "shutdown")
  public WorkflowServiceStubs serviceStubs(
      TemporalConfig config, TemporalEndpoint endpoint, Scope metricsScope) {
    WorkflowServiceStubsOptions.Builder options =
        WorkflowServiceStubsOptions.newBuilder()
            .setTarget(endpoint.address())
            .setMetricsScope(metricsScope);
    if (config.tls() != null && config.tls().certFile() != null) {
      options.setSslContext(sslContext(config.tls()));
      if (config.tls().serverName() != null) {
        options.setChannelInitializer(
            channel -> channel.overrideAuthority(config.tls().serverName()));
      }
    }
    return WorkflowServiceStubs.newServiceStubs(options.build());
  }

  /**
   * The one client of the worker and the API. With a payload codec, workflow and activity inputs
   * and results, query answers, heartbeat details, memo values and failure messages and stack
   * traces go through it, so Temporal's history holds them encrypted; workflow ids, types, task
   * queues and search attributes stay readable.
   */
  @Singleton
  public WorkflowClient workflowClient(
      WorkflowServiceStubs stubs, TemporalConfig config, @Nullable AesGcmPayloadCodec codec) {
    WorkflowClientOptions.Builder options =
        WorkflowClientOptions.newBuilder().setNamespace(config.namespace());
    if (codec != null) {
      options.setDataConverter(
          new CodecDataConverter(
              DefaultDataConverter.newDefaultInstance(),
              List.of(codec),
              ENCODE_FAILURE_ATTRIBUTES));
    } else {
      LOG.warn(
          "runbooks.codec.keys-file is not set: runbook inputs, results and progress (cluster and member names, URLs,"
              + " versions) are stored in PLAINTEXT in Temporal's history. Set it to encrypt them; see docs/configuration.md.");
    }
    return WorkflowClient.newInstance(stubs, options.build());
  }

  static SslContext sslContext(TemporalConfig.Tls tls) {
    checkKeyFile(tls);
    try {
      SslContextBuilder builder =
          GrpcSslContexts.forClient().keyManager(new File(tls.certFile()), new File(tls.keyFile()));
      if (tls.caFile() != null && !tls.caFile().isBlank()) {
        builder.trustManager(new File(tls.caFile()));
      }
      return builder.build();
    } catch (SSLException | RuntimeException e) {
      // The message names the files, never their contents.
      throw new IllegalStateException(
          "cannot set up TLS to Temporal with certFile "
              + tls.certFile()
              + ", keyFile "
              + tls.keyFile()
              + ", caFile "
              + tls.caFile()
              + ": "
              + e.getClass().getSimpleName(),
          e);
    }
  }

  /** The client key is a secret file ({@link SecretFiles}); netty would read one of any mode. */
  private static void checkKeyFile(TemporalConfig.Tls tls) {
    if (tls.keyFile() == null || tls.keyFile().isBlank()) {
      throw new IllegalStateException(
          "temporal.tls.cert-file is set but temporal.tls.key-file is not: mTLS needs both");
    }
    Path keyFile = Path.of(tls.keyFile());
    try {
      SecretFiles.check("the Temporal client key file (temporal.tls.key-file)", keyFile);
    } catch (SecretFiles.Refused e) {
      throw new IllegalStateException(e.getMessage());
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot read temporal.tls.key-file "
              + keyFile
              + " ("
              + e.getClass().getSimpleName()
              + ")");
    }
  }

  /**
   * Where Temporal answers.
   *
   * @param inProcess the server runs in this JVM and ends with it (only in the tests), so no other
   *     worker can outlive it ({@link StickyExecution})
   */
  public record TemporalEndpoint(String address, boolean inProcess) {}
}
