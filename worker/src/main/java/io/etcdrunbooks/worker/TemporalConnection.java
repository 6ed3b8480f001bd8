package io.etcdrunbooks.worker;

import io.etcdrunbooks.secrets.SecretFiles;
import io.grpc.netty.shaded.io.grpc.netty.GrpcSslContexts;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContext;
import io.grpc.netty.shaded.io.netty.handler.ssl.SslContextBuilder;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How the worker and the API reach the configured frontend, as Temporal's own clients do from the
 * same settings: plain, TLS trusting a CA (Temporal Cloud with an API key: TLS without a client
 * certificate), or mutual TLS; an API key is sent as a bearer token on every call. Messages name
 * settings and files, never a key.
 */
final class TemporalConnection {

  private static final Logger LOG = LoggerFactory.getLogger(TemporalConnection.class);

  private TemporalConnection() {}

  /** The connection part of the stubs' options for {@code config}, to {@code address}. */
  static WorkflowServiceStubsOptions.Builder options(TemporalConfig config, String address) {
    WorkflowServiceStubsOptions.Builder options =
        WorkflowServiceStubsOptions.newBuilder().setTarget(address);
    String apiKey = apiKey(config);
    TemporalConfig.Tls tls = config.tls();
    if (tlsOn(tls, apiKey != null)) {
      options.setSslContext(sslContext(tls));
      if (tls != null && present(tls.serverName())) {
        options.setChannelInitializer(channel -> channel.overrideAuthority(tls.serverName()));
      }
    } else if (apiKey != null) {
      LOG.warn(
          "temporal.tls.enabled is false while an API key is set: the key goes to {} unencrypted",
          address);
    }
    if (apiKey != null) options.addApiKey(() -> apiKey);
    return options;
  }

  private static boolean tlsOn(TemporalConfig.Tls tls, boolean apiKey) {
    String enabled = tls == null ? null : tls.enabled();
    if (!present(enabled)) return apiKey || (tls != null && present(tls.certFile()));
    return switch (enabled.strip().toLowerCase(java.util.Locale.ROOT)) {
      case "true" -> true;
      case "false" -> false;
      default ->
          throw new IllegalStateException(
              "temporal.tls.enabled (TEMPORAL_TLS) is '"
                  + enabled
                  + "': it takes true, false or nothing (on with a client certificate or an API"
                  + " key)");
    };
  }

  /** The API key of temporal.api-key-file or temporal.api-key (not both), or null. */
  private static String apiKey(TemporalConfig config) {
    boolean inline = present(config.apiKey());
    boolean file = present(config.apiKeyFile());
    if (inline && file) {
      throw new IllegalStateException(
          "both temporal.api-key (TEMPORAL_API_KEY) and temporal.api-key-file"
              + " (TEMPORAL_API_KEY_FILE) are set: set one");
    }
    if (inline) return config.apiKey().strip();
    if (!file) return null;
    Path path = Path.of(config.apiKeyFile());
    try {
      SecretFiles.check("the Temporal API key file (temporal.api-key-file)", path);
      String key = Files.readString(path, StandardCharsets.UTF_8).strip();
      if (key.isEmpty()) {
        throw new IllegalStateException("the Temporal API key file " + path + " is empty");
      }
      return key;
    } catch (SecretFiles.Refused e) {
      throw new IllegalStateException(e.getMessage());
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot read temporal.api-key-file " + path + " (" + e.getClass().getSimpleName() + ")");
    }
  }

  private static SslContext sslContext(TemporalConfig.Tls tls) {
    boolean clientCertificate = tls != null && present(tls.certFile());
    if (clientCertificate) checkKeyFile(tls);
    try {
      SslContextBuilder builder = GrpcSslContexts.forClient();
      if (clientCertificate) {
        builder.keyManager(new File(tls.certFile()), new File(tls.keyFile()));
      }
      if (tls != null && present(tls.caFile())) builder.trustManager(new File(tls.caFile()));
      return builder.build();
    } catch (SSLException | RuntimeException e) {
      // The message names the files, never their contents.
      throw new IllegalStateException(
          "cannot set up TLS to Temporal with certFile "
              + (tls == null ? null : tls.certFile())
              + ", keyFile "
              + (tls == null ? null : tls.keyFile())
              + ", caFile "
              + (tls == null ? null : tls.caFile())
              + ": "
              + e.getClass().getSimpleName(),
          e);
    }
  }

  /** The client key is a secret file ({@link SecretFiles}); netty would read one of any mode. */
  private static void checkKeyFile(TemporalConfig.Tls tls) {
    if (!present(tls.keyFile())) {
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

  private static boolean present(String value) {
    return value != null && !value.isBlank();
  }
}
