package io.etcdrunbooks.api;

import io.micronaut.context.annotation.Value;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.order.Ordered;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.annotation.RequestFilter;
import io.micronaut.http.annotation.ServerFilter;
import java.util.List;

/**
 * A process without the api role still serves {@code /health} and {@code /metrics}, but not the API
 * or the Slack endpoint: those answer 404 naming the role, so a worker-only process is never an
 * unplanned way in. The roles are the property {@code runbooks.roles} the etcd-runbooks command
 * sets ({@code run --roles=worker}); without it, the API is on.
 */
@ServerFilter({"/api/**", "/slack/**"})
public final class RolesFilter implements Ordered {

  private final boolean api;

  public RolesFilter(@Value("${runbooks.roles:worker,api}") String roles) {
    this.api = List.of(roles.split(",")).contains("api");
  }

  @RequestFilter
  @Nullable
  public HttpResponse<?> onlyWithTheApiRole(HttpRequest<?> request) {
    if (api) return null;
    return HttpResponse.notFound(
        new ApiError(
            "this process runs without the api role (--roles=worker): "
                + request.getPath()
                + " is served by processes started with --roles=api or --roles=worker,api"));
  }

  @Override
  public int getOrder() {
    return HIGHEST_PRECEDENCE; // before the API's token check
  }
}
