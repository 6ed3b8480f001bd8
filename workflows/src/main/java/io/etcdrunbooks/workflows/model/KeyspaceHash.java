package io.etcdrunbooks.workflows.model;

/**
 * One member's hashkv at one revision: etcd's hash of every key-value entry from its compaction
 * {@code compactRevision} up to {@code revision}. Two such hashes are comparable only at the same
 * revision and compaction.
 *
 * @param hash the hash, an unsigned 32-bit CRC
 */
public record KeyspaceHash(long revision, long compactRevision, long hash) {}
