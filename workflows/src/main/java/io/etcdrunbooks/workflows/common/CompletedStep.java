package io.etcdrunbooks.workflows.common;

/**
 * One finished step of a runbook.
 *
 * @param name what was done, for example "m2: stop"
 * @param startedAtMillis workflow time the step started
 * @param durationMillis how long it took
 * @param outcome "done", "skipped: ..." or "failed: ..."
 */
public record CompletedStep(
    String name, long startedAtMillis, long durationMillis, String outcome) {}
