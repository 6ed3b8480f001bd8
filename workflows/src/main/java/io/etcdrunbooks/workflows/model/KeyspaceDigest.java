package io.etcdrunbooks.workflows.model;

/**
 * A checksum of every key at one revision: key, value, create and mod revisions, version and lease.
 * Two digests at the same revision are equal exactly when the keyspace and its revisions are.
 */
public record KeyspaceDigest(long revision, long keyCount, String sha256) {}
