package io.etcdrunbooks.runtime;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

/**
 * Whether the API starts runbooks with the Temporal search attributes EtcdCluster, EtcdRunbook,
 * EtcdRunbookPhase, EtcdStartedBy and EtcdFleet, and lists a cluster's runbooks by them. Off by
 * default: a Temporal server fails every workflow task that upserts an attribute its namespace does
 * not have, so the operator registers them first (docs/configuration.md).
 *
 * @param enabled set only once the five are registered in the namespace
 */
@ConfigurationProperties("runbooks.search-attributes")
public record SearchAttributesConfig(@Bindable(defaultValue = "false") boolean enabled) {}
