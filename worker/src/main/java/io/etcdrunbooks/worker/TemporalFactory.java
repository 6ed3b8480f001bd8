package io.etcdrunbooks.worker;

import com.uber.m3.tally.Scope;
import io.etcdrunbooks.runtime.codec.AesGcmPayloadCodec;
import io.etcdrunbooks.workflows.common.RunbookLogContext;
import io.etcdrunbooks.workflows.common.RunbookPayloads;
import io.micronaut.context.annotation.Bean;
import io.micronaut.context.annotation.Factory;
import io.micronaut.core.annotation.Nullable;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.common.converter.CodecDataConverter;
import io.temporal.common.converter.DataConverter;
import io.temporal.serviceclient.WorkflowServiceStubs;
import jakarta.inject.Singleton;
import java.util.List;
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
              + " server, run the demo (bash deploy/scripts/demo.sh), which starts a server of its own.");
    }
    return new TemporalEndpoint(config.address(), false);
  }

  @Singleton
  @Bean(preDestroy = "shutdown")
  public WorkflowServiceStubs serviceStubs(
      TemporalConfig config, TemporalEndpoint endpoint, Scope metricsScope) {
    return WorkflowServiceStubs.newServiceStubs(
        TemporalConnection.options(config, endpoint.address())
            .setMetricsScope(metricsScope)
            .build());
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
        RunbookPayloads.clientOptions().setNamespace(config.namespace());
    if (codec != null) {
      options.setDataConverter(
          new CodecDataConverter(
              RunbookPayloads.converter(), List.of(codec), ENCODE_FAILURE_ATTRIBUTES));
    } else {
      LOG.warn(
          "runbooks.codec.keys-file is not set: runbook inputs, results and progress (cluster and member names, URLs,"
              + " versions) are stored in PLAINTEXT in Temporal's history. Set it to encrypt them; see docs/configuration.md.");
    }
    // the cluster and phase of a runbook go with its activities' log lines (through the codec)
    DataConverter converter = options.build().getDataConverter();
    options.setContextPropagators(List.of(new RunbookLogContext(converter)));
    return WorkflowClient.newInstance(stubs, options.build());
  }

  /**
   * Where Temporal answers.
   *
   * @param inProcess the server runs in this JVM and ends with it (only in the tests), so no other
   *     worker can outlive it ({@link StickyExecution})
   */
  public record TemporalEndpoint(String address, boolean inProcess) {}
}
