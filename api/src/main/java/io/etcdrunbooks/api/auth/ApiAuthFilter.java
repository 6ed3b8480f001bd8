package io.etcdrunbooks.api.auth;

import io.etcdrunbooks.api.ApiError;
import io.etcdrunbooks.api.RunbookClusters;
import io.etcdrunbooks.api.RunbookStarter.Started;
import io.etcdrunbooks.runtime.http.OwnAuthentication;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.order.Ordered;
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
import io.micronaut.web.router.RouteAttributes;
import io.micronaut.web.router.RouteMatch;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who may call what. The decision is taken from the route Micronaut matched ({@link Access} on its
 * method) and the path variables it bound, which are exactly what the controller acts on, never
 * from the request's path: a trailing slash, a doubled or encoded slash, a dot segment or a matrix
 * parameter reaches either the same route (and the same rule) or no route at all. It fails closed:
 * a route without a rule is refused to everyone, and a token limited to some clusters is refused
 * wherever the cluster cannot be told.
 *
 * <p>401 without a known token, 403 without the role or the cluster. Every call that changes
 * something, allowed or not, is written to the audit log (logger {@code etcd-runbooks.audit}): who,
 * what, which cluster, the answer.
 */
@ServerFilter(ServerFilter.MATCH_ALL_PATTERN)
public final class ApiAuthFilter implements Ordered {

  public static final String CALLER = "etcd-runbooks.caller";
  private static final String CLUSTER = "etcd-runbooks.cluster";
  private static final String WORKFLOW = "etcd-runbooks.workflow";
  private static final Pattern CLUSTER_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
  private static final Logger AUDIT = LoggerFactory.getLogger("etcd-runbooks.audit");

  private final ApiTokens tokens;
  private final RunbookClusters runbooks;

  public ApiAuthFilter(ApiTokens tokens, RunbookClusters runbooks) {
    this.tokens = tokens;
    this.runbooks = runbooks;
  }

  @Override
  public int getOrder() {
    return 0; // after the worker-only 404 and the codec's CORS preflight
  }

  @RequestFilter
  @ExecuteOn(TaskExecutors.BLOCKING)
  @Nullable
  public HttpResponse<?> authorize(HttpRequest<?> request) {
    Optional<RouteMatch<?>> route = RouteAttributes.getRouteMatch(request);
    if (route.isPresent()
        && route.get().getAnnotationMetadata().hasAnnotation(OwnAuthentication.class)) return null;
    if (route.isEmpty() && !underApi(request)) return null; // no route: 404 or 405, nothing runs
    Optional<String> unusable = tokens.unusable();
    if (unusable.isPresent()) return refuse(request, null, HttpStatus.UNAUTHORIZED, unusable.get());
    String header = request.getHeaders().get(HttpHeaders.AUTHORIZATION);
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return refuse(
          request, null, HttpStatus.UNAUTHORIZED, "missing 'Authorization: Bearer <token>' header");
    }
    Optional<Caller> caller = tokens.authenticate(header.substring(7));
    if (caller.isEmpty())
      return refuse(
          request,
          null,
          HttpStatus.UNAUTHORIZED,
          "the bearer token is not one of runbooks.api.tokens-file");
    Caller who = caller.get();
    if (route.isEmpty()) {
      request.setAttribute(CALLER, who);
      return null; // authenticated, and nothing matched: the 404 or 405 follows
    }
    Optional<ApiAction> action =
        route.get().getAnnotationMetadata().enumValue(Access.class, ApiAction.class);
    if (action.isEmpty()) {
      return refuse(
          request,
          who,
          HttpStatus.FORBIDDEN,
          request.getMethod()
              + " "
              + request.getPath()
              + " has no access rule, so nobody may call it");
    }
    return authorize(request, who, action.get(), route.get());
  }

  private HttpResponse<?> authorize(
      HttpRequest<?> request, Caller who, ApiAction action, RouteMatch<?> route) {
    String call = request.getMethod() + " " + request.getPath();
    if (!who.role().atLeast(action.role())) {
      return refuse(
          request,
          who,
          HttpStatus.FORBIDDEN,
          "token '"
              + who.name()
              + "' has role "
              + name(who.role())
              + "; "
              + call
              + " needs "
              + name(action.role()));
    }
    Optional<String> cluster = Optional.empty();
    switch (action.scope()) {
      case CALLERS_CLUSTERS -> {}
      case EVERY_CLUSTER -> {
        if (who.isLimited()) {
          return refuse(
              request,
              who,
              HttpStatus.FORBIDDEN,
              "token '"
                  + who.name()
                  + "' may act on clusters "
                  + who.clusters()
                  + "; "
                  + call
                  + " can reach any cluster's runbooks, so it needs a token for every cluster");
        }
      }
      case CLUSTER -> {
        cluster = variable(route, ApiAction.CLUSTER_VARIABLE);
        if (cluster.isPresent() && !CLUSTER_NAME.matcher(cluster.get()).matches()) {
          // an encoded slash or dot segment inside the name: no inventory cluster is called so, and
          // a glob must not match it
          return refuse(
              request, who, HttpStatus.NOT_FOUND, "no cluster is named '" + cluster.get() + "'");
        }
        if (cluster.isEmpty() && who.isLimited())
          return undetermined(request, who, "the route names no cluster");
      }
      case RUNBOOK -> {
        Optional<String> workflowId = variable(route, ApiAction.RUNBOOK_VARIABLE);
        workflowId.ifPresent(id -> request.setAttribute(WORKFLOW, id));
        cluster = workflowId.flatMap(runbooks::clusterOf);
        if (cluster.isEmpty() && who.isLimited()) {
          return undetermined(
              request,
              who,
              "the cluster of runbook "
                  + workflowId.orElse("(none named)")
                  + " cannot be told (no such runbook, or its input names no cluster)");
        }
      }
    }
    if (cluster.isPresent() && !who.mayActOn(cluster.get())) {
      return refuse(
          request,
          who,
          HttpStatus.FORBIDDEN,
          "token '"
              + who.name()
              + "' may act on clusters "
              + who.clusters()
              + ", not on '"
              + cluster.get()
              + "'");
    }
    request.setAttribute(CALLER, who);
    cluster.ifPresent(c -> request.setAttribute(CLUSTER, c));
    return null;
  }

  @ResponseFilter
  public void audit(HttpRequest<?> request, MutableHttpResponse<?> response) {
    if (request.getMethod() == HttpMethod.GET || request.getMethod() == HttpMethod.HEAD) return;
    Optional<Caller> who = request.getAttribute(CALLER, Caller.class);
    if (who.isEmpty())
      return; // refused calls were audited when refused; routes with their own authentication audit
    // themselves
    // which runbook: the one the route names, or the one a start answered with
    String workflow =
        request
            .getAttribute(WORKFLOW, String.class)
            .or(
                () ->
                    response
                        .getBody()
                        .filter(Started.class::isInstance)
                        .map(b -> ((Started) b).workflowId()))
            .orElse("-");
    AUDIT.info(
        "who={} role={} cluster={} workflow={} {} {} -> {}",
        who.get().name(),
        name(who.get().role()),
        request.getAttribute(CLUSTER, String.class).orElse("-"),
        workflow,
        request.getMethod(),
        request.getPath(),
        response.code());
  }

  private static Optional<String> variable(RouteMatch<?> route, String name) {
    Object value = route.getVariableValues().get(name);
    return value == null || value.toString().isBlank()
        ? Optional.empty()
        : Optional.of(value.toString());
  }

  /** Paths no route matched still need a token under /api, however they are spelt. */
  private static boolean underApi(HttpRequest<?> request) {
    return request.getPath().toLowerCase(Locale.ROOT).replaceAll("/+", "/").startsWith("/api");
  }

  private static HttpResponse<?> undetermined(HttpRequest<?> request, Caller who, String why) {
    return refuse(
        request,
        who,
        HttpStatus.FORBIDDEN,
        "token '" + who.name() + "' may act on clusters " + who.clusters() + ", and " + why);
  }

  private static HttpResponse<?> refuse(
      HttpRequest<?> request, Caller who, HttpStatus status, String why) {
    AUDIT.warn(
        "who={} refused {} {} -> {}: {}",
        who == null ? "-" : who.name(),
        request.getMethod(),
        request.getPath(),
        status.getCode(),
        why);
    MutableHttpResponse<ApiError> response =
        HttpResponse.<ApiError>status(status).body(new ApiError(why));
    return status == HttpStatus.UNAUTHORIZED
        ? response.header(HttpHeaders.WWW_AUTHENTICATE, "Bearer")
        : response;
  }

  private static String name(Role role) {
    return role.name().toLowerCase(Locale.ROOT);
  }
}
