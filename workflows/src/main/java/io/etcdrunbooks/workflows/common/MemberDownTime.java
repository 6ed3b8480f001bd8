package io.etcdrunbooks.workflows.common;

/**
 * How long one member was out of its cluster for a restart: from its stop until it was ready again
 * (healthy, caught up, on the version).
 *
 * @param member the member
 * @param version the version it came back on
 * @param millis stopped until ready, workflow time
 */
public record MemberDownTime(String member, String version, long millis) {}
