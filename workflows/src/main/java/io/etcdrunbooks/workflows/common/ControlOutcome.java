package io.etcdrunbooks.workflows.common;

/**
 * What an accepted control update did.
 *
 * @param control approve, pause, resume or cancel
 * @param by who asked, as the runbook keeps it in its memo
 * @param phase the runbook's phase when it took the control
 * @param message what the runbook does now, for example "approved by on-call"
 */
public record ControlOutcome(String control, String by, Phase phase, String message) {}
