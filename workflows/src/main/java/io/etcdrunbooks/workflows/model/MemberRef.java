package io.etcdrunbooks.workflows.model;

/** One member of an inventory cluster, by its inventory name. */
public record MemberRef(String cluster, String member) {}
