package io.etcdrunbooks.workflows.model;

import java.util.List;

/**
 * What retention did to a cluster's backups.
 *
 * @param cluster cluster name
 * @param kept ids of the backups kept, newest first
 * @param deleted ids of the backups deleted by this run, newest first
 * @param unverified ids of backups whose file is gone or does not have its recorded size (kept when
 *     newer than the newest good backup, deleted otherwise)
 */
public record RetentionResult(
    String cluster, List<String> kept, List<String> deleted, List<String> unverified) {}
