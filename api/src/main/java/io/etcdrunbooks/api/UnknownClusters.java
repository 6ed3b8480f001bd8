package io.etcdrunbooks.api;

import io.etcdrunbooks.api.auth.ApiAuthFilter;
import io.etcdrunbooks.api.auth.Caller;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.UnknownClusterException;
import io.micronaut.http.HttpRequest;
import java.util.List;

/**
 * The 404 of an unknown cluster names only the clusters the caller may act on, never the whole
 * inventory.
 */
final class UnknownClusters {

  private UnknownClusters() {}

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
