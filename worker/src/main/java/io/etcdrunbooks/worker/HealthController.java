package io.etcdrunbooks.worker;

import io.etcdrunbooks.runtime.http.OwnAuthentication;
import io.micronaut.context.BeanProvider;
import io.micronaut.context.annotation.Value;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Get;
import io.micronaut.scheduling.TaskExecutors;
import io.micronaut.scheduling.annotation.ExecuteOn;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Health of this process for load balancers and Kubernetes probes. {@code /health}, readiness:
 * Temporal answers (a real call with a 2 s deadline) and, in a process with the worker role, the
 * worker polls; 200 when all is well, 503 naming what is not. {@code /health/live}, liveness: the
 * process serves HTTP, whatever Temporal does, so that a Temporal outage makes pods unready rather
 * than restarting every one of them. No token, like {@code /metrics}.
 */
@Controller
@ExecuteOn(TaskExecutors.BLOCKING)
public final class HealthController {

  private final WorkflowServiceStubs temporal;
  private final TemporalFactory.TemporalEndpoint endpoint;
  private final BeanProvider<RunbookWorker> worker;
  private final List<String> roles;

  public HealthController(
      WorkflowServiceStubs temporal,
      TemporalFactory.TemporalEndpoint endpoint,
      BeanProvider<RunbookWorker> worker,
      @Value("${runbooks.roles:worker,api}") String roles) {
    this.temporal = temporal;
    this.endpoint = endpoint;
    this.worker = worker;
    this.roles = List.of(roles.split(","));
  }

  @OwnAuthentication("public: for Kubernetes' liveness probe; names nothing")
  @Get("/health/live")
  public HttpResponse<Map<String, Object>> live() {
    return HttpResponse.ok(Map.of("status", "UP", "roles", roles));
  }

  @OwnAuthentication("public: for load balancers and probes; names no cluster")
  @Get("/health")
  public HttpResponse<Map<String, Object>> health() {
    Map<String, Object> checks = new LinkedHashMap<>();
    boolean up = true;
    try {
      temporal
          .blockingStub()
          .withDeadlineAfter(2, TimeUnit.SECONDS)
          .getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
      checks.put(
          "temporal",
          Map.of("status", "UP", "address", endpoint.address(), "embedded", endpoint.inProcess()));
    } catch (RuntimeException e) {
      up = false;
      checks.put(
          "temporal",
          Map.of(
              "status",
              "DOWN",
              "address",
              endpoint.address(),
              "error",
              e.getClass().getSimpleName() + ": " + String.valueOf(e.getMessage())));
    }
    if (roles.contains("worker")) {
      boolean polling = worker.get().isPolling();
      up &= polling;
      checks.put("worker", Map.of("status", polling ? "UP" : "DOWN"));
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("status", up ? "UP" : "DOWN");
    body.put("roles", roles);
    body.putAll(checks);
    return HttpResponse.status(up ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE).body(body);
  }
}
