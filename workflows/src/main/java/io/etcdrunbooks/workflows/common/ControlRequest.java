package io.etcdrunbooks.workflows.common;

/**
 * A pause or a resume, as the {@code pauseRun} and {@code resumeRun} updates take it.
 *
 * @param by who asks (the API passes the caller's token name; from the Web UI or CLI, your name)
 */
public record ControlRequest(String by) {}
