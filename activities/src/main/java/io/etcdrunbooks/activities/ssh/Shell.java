package io.etcdrunbooks.activities.ssh;

/** Quoting for /bin/sh command strings sent to hosts. */
public final class Shell {

  private Shell() {}

  /** The argument as one single-quoted sh word: {@code it's} becomes {@code 'it'\''s'}. */
  public static String quote(String arg) {
    if (arg == null) throw new IllegalArgumentException("cannot quote null");
    if (!arg.isEmpty() && arg.matches("[A-Za-z0-9_./:=,@%+-]+")) return arg;
    return "'" + arg.replace("'", "'\\''") + "'";
  }
}
