package io.etcdrunbooks.workflows.model;

/**
 * Names a cluster of the worker's inventory. Nothing secret: hosts, keys and certificates stay in
 * the worker.
 */
public record ClusterRef(String cluster) {}
