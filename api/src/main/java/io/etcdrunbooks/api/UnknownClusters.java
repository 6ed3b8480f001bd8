package io.etcdrunbooks.api;

import io.etcdrunbooks.api.auth.ApiAuthFilter;
import io.etcdrunbooks.api.auth.Caller;
import io.etcdrunbooks.inventory.InvalidClusterException;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.UnknownClusterException;
import io.micronaut.http.HttpRequest;
import io.micronaut.http.HttpResponse;
import io.micronaut.http.HttpStatus;
import java.util.List;

/**
 * The 404 of an unknown cluster names only the clusters the caller may act on, never the whole
 * inventory; a cluster whose inventory entry is invalid is a 409 that says what is wrong with it.
 */
final class UnknownClusters {

  private UnknownClusters() {}

  static HttpResponse<ApiError> response(
      HttpRequest<?> http, UnknownClusterException e, InventorySource inventory) {
    if (e instanceof InvalidClusterException) {
      return HttpResponse.<ApiError>status(HttpStatus.CONFLICT).body(new ApiError(e.getMessage()));
    }
    return HttpResponse.notFound(new ApiError(message(http, e, inventory)));
  }

  static String message(HttpRequest<?> http, UnknownClusterException e, InventorySource inventory) {
    Caller caller = http.getAttribute(ApiAuthFilter.CALLER, Caller.class).orElse(null);
    List<String> visible =
        caller == null
            ? List.of()
            : inventory.get().clusters().keySet().stream()
                .filter(caller::mayActOn)
                .sorted()
                .toList();
    return "no cluster '"
        + e.name()
        + "' in the inventory"
        + (visible.isEmpty() ? "" : "; you may act on " + visible)
        + ". GET /api/v1/clusters lists them";
  }
}
