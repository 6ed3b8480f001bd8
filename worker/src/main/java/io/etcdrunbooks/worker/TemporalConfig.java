package io.etcdrunbooks.worker;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;

/**
 * How to reach Temporal.
 *
 * @param address host:port of the Temporal frontend; the process refuses to start without it
 * @param namespace Temporal namespace
 * @param apiKey an API key (Temporal Cloud's, say), sent as a bearer token; TLS is then on unless
 *     {@code tls.enabled} is false. Prefer {@code apiKeyFile}: an environment variable is seen by
 *     whoever can read the process's environment
 * @param apiKeyFile a file holding the API key (a secret file: mode 0600 or stricter)
 * @param tls TLS to the frontend, with or without a client certificate (files on this host)
 * @param stickyExecution whether a workflow's next task goes to the worker that ran its last one,
 *     which keeps the workflow in memory instead of replaying its history: {@code auto} (off only
 *     when the server is a Temporal Java test server, which never hands a dead worker's tasks on),
 *     {@code true} or {@code false} ({@link StickyExecution})
 */
@ConfigurationProperties("temporal")
public record TemporalConfig(
    @Nullable String address,
    @Bindable(defaultValue = "default") String namespace,
    @Nullable String apiKey,
    @Nullable String apiKeyFile,
    @Nullable Tls tls,
    @Bindable(defaultValue = "auto") String stickyExecution) {

  /**
   * @param enabled {@code true} or {@code false}; empty: on when a client certificate or an API key
   *     is given
   * @param certFile client certificate chain (PEM); with keyFile, mutual TLS
   * @param keyFile client key (PKCS#8 PEM)
   * @param caFile CA bundle to trust (PEM); empty trusts the JVM's defaults
   * @param serverName name to expect on the server certificate, when it differs from the address
   */
  @ConfigurationProperties("tls")
  public record Tls(
      @Nullable String enabled,
      @Nullable String certFile,
      @Nullable String keyFile,
      @Nullable String caFile,
      @Nullable String serverName) {}
}
