package io.etcdrunbooks.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdrunbooks.runtime.http.OwnAuthentication;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MediaType;
import io.micronaut.http.annotation.Body;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Header;
import io.micronaut.http.annotation.Post;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Alertmanager's webhook receiver: a firing member-down alert starts the ReplaceMember runbook of
 * that member (see {@link AlertHandler}). Every alert gets its result in a 200 answer, so
 * Alertmanager does not retry alerts that can never succeed; only a failure that may pass (Temporal
 * unreachable, another change of the cluster running) answers 503, and Alertmanager's retry is then
 * harmless because a cluster has one change at a time.
 */
@Controller("/api/v1/alerts")
@ExecuteOn(TaskExecutors.BLOCKING)
public final class AlertmanagerController {

  private static final Logger LOG = LoggerFactory.getLogger(AlertmanagerController.class);
  private static final ObjectMapper JSON =
      new ObjectMapper().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  private final AlertsConfig config;
  private final AlertHandler handler;

  AlertmanagerController(AlertsConfig config, AlertHandler handler) {
    this.config = config;
    this.handler = handler;
  }

  @OwnAuthentication("Alertmanager's own bearer token, runbooks.alerts.token-sha256")
  @Post(
      uri = "/alertmanager",
      consumes = {MediaType.APPLICATION_JSON, MediaType.TEXT_PLAIN})
  public HttpResponse<?> alertmanager(
      @Nullable @Header(HttpHeaders.AUTHORIZATION) String authorization,
      @Nullable @Body String body) {
    String refusal = authorizationProblem(authorization);
    if (refusal != null) {
      LOG.warn("alertmanager webhook refused: {}", refusal);
      return HttpResponse.<ApiError>status(HttpStatus.UNAUTHORIZED)
          .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer")
          .body(new ApiError(refusal));
    }
    AlertmanagerPayload payload;
    try {
      payload = parse(body);
    } catch (IllegalArgumentException e) {
      LOG.warn("alertmanager webhook: bad payload: {}", e.getMessage());
      return HttpResponse.badRequest(new ApiError(e.getMessage()));
    }
    List<AlertResult> results =
        payload.alerts().stream().map(alert -> handler.handle(alert, payload.status())).toList();
    boolean retry =
        results.stream()
            .anyMatch(
                r -> AlertResult.ERROR.equals(r.outcome()) || AlertResult.BUSY.equals(r.outcome()));
    return HttpResponse.status(retry ? HttpStatus.SERVICE_UNAVAILABLE : HttpStatus.OK)
        .body(new AlertResult.Results(results));
  }

  /** Why the call is not allowed, or null when it is. Never names the token that was sent. */
  private String authorizationProblem(String authorization) {
    if (!config.enabled()) {
      return "the Alertmanager endpoint is disabled until runbooks.alerts.token-sha256 is set"
          + " (the SHA-256 of the bearer token, see docs/configuration.md)";
    }
    if (authorization == null || authorization.isBlank()) {
      return "missing 'Authorization: Bearer <token>' header: set http_config.authorization.credentials_file"
          + " in the Alertmanager webhook_config";
    }
    if (!authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return "the Authorization header is not 'Bearer <token>': use http_config.authorization (type Bearer, the default)"
          + " in the Alertmanager webhook_config, not basic_auth";
    }
    byte[] presented = sha256(authorization.substring(7).strip());
    if (!MessageDigest.isEqual(presented, config.tokenSha256Bytes())) {
      return "the bearer token does not match runbooks.alerts.token-sha256";
    }
    return null;
  }

  static AlertmanagerPayload parse(String body) {
    if (body == null || body.isBlank()) {
      throw new IllegalArgumentException(
          "empty body: expected an Alertmanager webhook payload (version "
              + AlertmanagerPayload.SUPPORTED_VERSION
              + ")");
    }
    JsonNode tree;
    try {
      tree = JSON.readTree(body);
    } catch (JsonProcessingException e) {
      String where =
          e.getLocation() == null
              ? ""
              : " (line "
                  + e.getLocation().getLineNr()
                  + ", column "
                  + e.getLocation().getColumnNr()
                  + ")";
      throw new IllegalArgumentException(
          "the body is not valid JSON" + where + ": " + e.getOriginalMessage());
    }
    if (tree == null || !tree.isObject()) {
      throw new IllegalArgumentException(
          "the body must be a JSON object: an Alertmanager webhook payload (version "
              + AlertmanagerPayload.SUPPORTED_VERSION
              + ")");
    }
    JsonNode version = tree.path("version");
    if (!version.isValueNode() || !AlertmanagerPayload.SUPPORTED_VERSION.equals(version.asText())) {
      String shown =
          version.isMissingNode() || version.isNull()
              ? "(none)"
              : version.isValueNode() && version.asText().length() <= 20
                  ? "'" + version.asText() + "'"
                  : "(not a version string)";
      throw new IllegalArgumentException(
          "unsupported payload version "
              + shown
              + ": this endpoint reads Alertmanager webhook payloads version "
              + AlertmanagerPayload.SUPPORTED_VERSION
              + "; point an Alertmanager webhook_config at it");
    }
    if (!tree.path("alerts").isArray()) {
      throw new IllegalArgumentException(
          "the payload has no 'alerts' list: expected an Alertmanager webhook payload (version "
              + AlertmanagerPayload.SUPPORTED_VERSION
              + ")");
    }
    try {
      return JSON.treeToValue(tree, AlertmanagerPayload.class);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException(
          "the payload does not have the shape of an Alertmanager webhook payload: "
              + e.getOriginalMessage());
    }
  }

  private static byte[] sha256(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no SHA-256", e);
    }
  }
}
