package io.etcdrunbooks.api.auth;

import java.util.Locale;

/** What a token may do; each role may do everything the ones before it may. */
public enum Role {
  /** Read status and progress. */
  VIEWER,
  /**
   * Start upgrades, member replacements and backup schedules; approve, pause and resume runbooks.
   */
  OPERATOR,
  /** Restore and roll back: anything that can lose data. */
  ADMIN;

  public boolean atLeast(Role needed) {
    return compareTo(needed) >= 0;
  }

  public static Role parse(String where, String value) {
    try {
      return Role.valueOf(value == null ? "" : value.strip().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          where + ": role must be viewer, operator or admin, got '" + value + "'");
    }
  }
}
