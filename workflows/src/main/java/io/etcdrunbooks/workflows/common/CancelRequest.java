package io.etcdrunbooks.workflows.common;

/**
 * A cancel, as the {@code cancelRun} update takes it.
 *
 * @param by who asks
 * @param reason why, kept with who asked in the progress, the memo and the failure message
 */
public record CancelRequest(String by, String reason) {}
