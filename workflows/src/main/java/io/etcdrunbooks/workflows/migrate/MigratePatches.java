package io.etcdrunbooks.workflows.migrate;

import io.etcdrunbooks.workflows.common.Patch;

/** The changes to MigrateV2ToV3 since it shipped, oldest first. */
final class MigratePatches {

  private MigratePatches() {}

  static final Patch ETCD_PREFIX =
      Patch.replayed(
          "migrate-etcd-prefix",
          "2026-11-26",
          "DISCOVER reads every kube-apiserver's --etcd-prefix; the migration moves, compares and"
              + " clears only that prefix, leaving flannel's and Calico's v2 keys where they are.",
          "histories/migrate-3.3.25-kubernetes-1.5-data.json",
          "histories/migrate-in-memory-failed-after-no-return.json",
          "histories/migrate-in-memory-first-apiserver-unhealthy.json",
          "histories/migrate-in-memory-migrated.json",
          "histories/migrate-in-memory-rolled-back-at-migrate.json");

  /**
   * Migrating each member gave stores that differ when v2 changed while they were stopped one by
   * one (events expiring, flannel writing): each member's WAL ends elsewhere.
   */
  static final Patch ONE_V3_STORE =
      Patch.replayed(
          "migrate-one-v3-store",
          "2026-11-26",
          "Only the member stopped first is migrated; every other member gets a copy of its v3"
              + " store, so that the stores cannot differ.",
          "histories/migrate-3.3.25-kubernetes-1.5-data.json",
          "histories/migrate-in-memory-failed-after-no-return.json",
          "histories/migrate-in-memory-first-apiserver-unhealthy.json",
          "histories/migrate-in-memory-migrated.json",
          "histories/migrate-in-memory-rolled-back-at-migrate.json");

  static final Patch TTL_KEYS_EXPIRE =
      Patch.replayed(
          "migrate-ttl-keys-expire",
          "2026-11-26",
          "The counts before and after compare the keys without a TTL only: keys with one expire"
              + " between DISCOVER and POSTFLIGHT, which is no write.",
          "histories/migrate-3.3.25-kubernetes-1.5-data.json",
          "histories/migrate-in-memory-failed-after-no-return.json",
          "histories/migrate-in-memory-first-apiserver-unhealthy.json",
          "histories/migrate-in-memory-migrated.json");
}
