package io.etcdrunbooks.api;

import io.etcdrunbooks.workflows.common.RunbookSearchAttributes;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import io.micronaut.http.annotation.Controller;
import io.micronaut.http.annotation.Error;
import io.temporal.client.WorkflowServiceException;
import java.util.Optional;

/**
 * runbooks.search-attributes.enabled is on and Temporal refused a runbook's start for its search
 * attributes: they are not registered in the namespace. Answered 503 naming the fix (a setting of
 * the service, not of the request), whichever way the runbook was started.
 */
public final class SearchAttributesNotRegistered extends RuntimeException {
  private static final long serialVersionUID = 1L;

  SearchAttributesNotRegistered(String reason) {
    super(
        "Temporal refused the runbook's search attributes ("
            + reason
            + "), so nothing was started: runbooks.search-attributes.enabled is on, but "
            + String.join(", ", RunbookSearchAttributes.ALL.stream().map(k -> k.getName()).toList())
            + " are not all registered in the namespace as Keyword. Register them"
            + " (docs/configuration.md, Search attributes) or set"
            + " runbooks.search-attributes.enabled=false, then start the runbook again");
  }

  /** The refusal, when {@code e} is Temporal refusing a start's arguments. */
  static Optional<SearchAttributesNotRegistered> of(WorkflowServiceException e) {
    if (e.getCause() instanceof StatusRuntimeException status
        && status.getStatus().getCode() == Status.Code.INVALID_ARGUMENT) {
      String reason = status.getStatus().getDescription();
      return Optional.of(
          new SearchAttributesNotRegistered(reason == null ? "INVALID_ARGUMENT" : reason));
    }
    return Optional.empty();
  }

  @Controller
  public static final class Answer {
    @Error(global = true, exception = SearchAttributesNotRegistered.class)
    public HttpResponse<ApiError> refused(SearchAttributesNotRegistered e) {
      return HttpResponse.<ApiError>status(HttpStatus.SERVICE_UNAVAILABLE)
          .body(new ApiError(e.getMessage()));
    }
  }
}
