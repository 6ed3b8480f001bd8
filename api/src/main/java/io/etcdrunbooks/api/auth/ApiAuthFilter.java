package io.etcdrunbooks.api.auth;

import io.etcdrunbooks.api.ApiError;
import io.etcdrunbooks.api.RunbookStarter.Started;
import io.etcdrunbooks.workflows.common.Progress;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.http.HttpHeaders;
import io.micronaut.http.HttpMethod;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.MutableHttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ResponseFilter;
import io.micronaut.http.annotation.ServerFilter;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every {@code /api/v1} call but the Alertmanager webhook (which has its own token) needs a bearer token from the
 * tokens file with the role the call needs and, for a cluster or a runbook of a cluster, a token allowed on that
 * cluster: 401 without a known token, 403 without the role or the cluster. Every call that changes something, allowed
 * or not, is written to the audit log (logger {@code etcd-runbooks.audit}): who, what, which cluster, the answer.
 */
@ServerFilter("/api/v1/**")
public final class ApiAuthFilter {

  public static final String CALLER = "etcd-runbooks.caller";
  private static final String CLUSTER = "etcd-runbooks.cluster";
  private static final Logger AUDIT = LoggerFactory.getLogger("etcd-runbooks.audit");
  private static final String ALERTS = "/api/v1/alerts/alertmanager";

  private final ApiTokens tokens;
  private final WorkflowClient client;

  public ApiAuthFilter(ApiTokens tokens, WorkflowClient client) {
    this.tokens = tokens;
    this.client = client;
  }

  @RequestFilter
  @ExecuteOn(TaskExecutors.BLOCKING)
  @Nullable
  public HttpResponse<?> authorize(HttpRequest<?> request) {
    String path = request.getPath();
    if (path.equals(ALERTS)) return null;
    RequiredAccess needed = RequiredAccess.of(request.getMethod(), path);
    Optional<String> unusable = tokens.unusable();
    if (unusable.isPresent()) return refuse(request, null, HttpStatus.UNAUTHORIZED, unusable.get());
    String header = request.getHeaders().get(HttpHeaders.AUTHORIZATION);
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return refuse(request, null, HttpStatus.UNAUTHORIZED, "missing 'Authorization: Bearer <token>' header");
    }
    Optional<Caller> caller = tokens.authenticate(header.substring(7));
    if (caller.isEmpty()) return refuse(request, null, HttpStatus.UNAUTHORIZED, "the bearer token is not one of runbooks.api.tokens-file");
    Caller who = caller.get();
    if (!who.role().atLeast(needed.role())) {
      return refuse(request, who, HttpStatus.FORBIDDEN, "token '" + who.name() + "' has role " + name(who.role()) + "; "
          + request.getMethod() + " " + path + " needs " + name(needed.role()));
    }
    if (needed.everyCluster() && !who.clusters().isEmpty()) {
      return refuse(request, who, HttpStatus.FORBIDDEN, "token '" + who.name() + "' may act on clusters " + who.clusters()
          + "; " + request.getMethod() + " " + path + " can reach any cluster's runbooks, so it needs a token for every cluster");
    }
    Optional<String> cluster = needed.cluster().or(() -> needed.workflowId().flatMap(this::clusterOf));
    if (cluster.isEmpty() && needed.workflowId().isPresent() && !who.clusters().isEmpty()) {
      // fail closed: a token limited to some clusters acts on no runbook whose cluster cannot be told
      return refuse(request, who, HttpStatus.FORBIDDEN, "token '" + who.name() + "' may act on clusters " + who.clusters()
          + ", and the cluster of runbook " + needed.workflowId().get() + " cannot be told (no such runbook, or no worker answers)");
    }
    if (cluster.isPresent() && !who.mayActOn(cluster.get())) {
      return refuse(request, who, HttpStatus.FORBIDDEN, "token '" + who.name() + "' may act on clusters " + who.clusters()
          + ", not on '" + cluster.get() + "'");
    }
    request.setAttribute(CALLER, who);
    cluster.ifPresent(c -> request.setAttribute(CLUSTER, c));
    return null;
  }

  @ResponseFilter
  public void audit(HttpRequest<?> request, MutableHttpResponse<?> response) {
    if (request.getMethod() == HttpMethod.GET || request.getPath().equals(ALERTS)) return;
    Optional<Caller> who = request.getAttribute(CALLER, Caller.class);
    if (who.isEmpty()) return; // refused calls were audited when refused
    // which runbook: the one in the path, or the one a start answered with
    String workflow = RequiredAccess.of(request.getMethod(), request.getPath()).workflowId()
        .or(() -> response.getBody().filter(Started.class::isInstance).map(b -> ((Started) b).workflowId()))
        .orElse("-");
    AUDIT.info("who={} role={} cluster={} workflow={} {} {} -> {}", who.get().name(), name(who.get().role()),
        request.getAttribute(CLUSTER, String.class).orElse("-"), workflow, request.getMethod(), request.getPath(),
        response.code());
  }

  /** The cluster a runbook runs on, from its progress; empty when there is no such runbook (the controller answers 404). */
  private Optional<String> clusterOf(String workflowId) {
    try {
      Progress progress = client.newUntypedWorkflowStub(workflowId).query("progress", Progress.class);
      return Optional.ofNullable(progress).map(Progress::cluster).filter(c -> !c.isEmpty());
    } catch (WorkflowException | io.grpc.StatusRuntimeException e) {
      return Optional.empty();
    }
  }

  private static HttpResponse<?> refuse(HttpRequest<?> request, Caller who, HttpStatus status, String why) {
    AUDIT.warn("who={} refused {} {} -> {}: {}", who == null ? "-" : who.name(), request.getMethod(), request.getPath(),
        status.getCode(), why);
    MutableHttpResponse<ApiError> response = HttpResponse.<ApiError>status(status).body(new ApiError(why));
    return status == HttpStatus.UNAUTHORIZED ? response.header(HttpHeaders.WWW_AUTHENTICATE, "Bearer") : response;
  }

  private static String name(Role role) {
    return role.name().toLowerCase(java.util.Locale.ROOT);
  }
}
