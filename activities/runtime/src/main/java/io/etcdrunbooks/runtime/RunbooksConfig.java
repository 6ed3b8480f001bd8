package io.etcdrunbooks.runtime;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.core.bind.annotation.Bindable;

/**
 * Where the worker and the API find their clusters and their Temporal task queue.
 *
 * @param inventory path of the inventory YAML (clusters, hosts, paths of SSH and TLS files)
 * @param taskQueue Temporal task queue the runbooks run on
 */
@ConfigurationProperties("runbooks")
public record RunbooksConfig(
    @Bindable(defaultValue = "inventory.yaml") String inventory,
    @Bindable(defaultValue = "etcd-runbooks") String taskQueue) {}
