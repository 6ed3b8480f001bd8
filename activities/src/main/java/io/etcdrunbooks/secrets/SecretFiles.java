package io.etcdrunbooks.secrets;

import com.sun.security.auth.module.UnixSystem;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The one rule for every file that holds a secret (the API tokens, the Slack signing secret, the
 * codec keys, the backup key, the SSH private key): it is a regular file, owned by the user this
 * process runs as or by root, and its group and others have no permission on it at all (mode 0600
 * or 0400). A symbolic link is followed, and the rule applies to the file it leads to (a Kubernetes
 * Secret volume is made of such links).
 *
 * <p>A file that breaks the rule is refused with {@link Refused}, whose message names the file,
 * what is wrong and the command that fixes it; nothing here ever reads or shows what the file
 * holds.
 */
public final class SecretFiles {

  private static final long ROOT = 0;

  private SecretFiles() {}

  /**
   * Checks the rule.
   *
   * @param what what the file is, for the message: "the API tokens file"
   * @throws Refused when the file breaks the rule
   * @throws IOException when it cannot be looked at (missing, a directory on the way that cannot be
   *     entered)
   */
  public static void check(String what, Path file) throws IOException {
    PosixFileAttributes attributes;
    long owner;
    try {
      attributes = Files.readAttributes(file, PosixFileAttributes.class);
      owner = ((Number) Files.getAttribute(file, "unix:uid")).longValue();
    } catch (UnsupportedOperationException | IllegalArgumentException notPosix) {
      throw new Refused(
          what
              + " "
              + file
              + " is on a file system without POSIX owners and permissions, so who may read it"
              + " cannot be checked; put it on a POSIX file system with mode 0600");
    }
    if (!attributes.isRegularFile()) {
      throw new Refused(
          what
              + " "
              + file
              + " is not a regular file ("
              + kind(attributes)
              + "); point the setting at the file"
              + " that holds the secret");
    }
    long self = processUid();
    if (owner != self && owner != ROOT) {
      throw new Refused(
          what
              + " "
              + file
              + " is owned by "
              + attributes.owner().getName()
              + " (uid "
              + owner
              + "), not by the"
              + " user this process runs as (uid "
              + self
              + ") or root, so that user can change it: chown "
              + self
              + " "
              + file);
    }
    List<String> open = openTo(attributes.permissions());
    if (!open.isEmpty()) {
      throw new Refused(
          what
              + " "
              + file
              + " has mode "
              + octal(attributes.permissions())
              + ": "
              + String.join(" and ", open)
              + "; a secret file must be for its owner only (0600 or 0400): chmod 600 "
              + file);
    }
  }

  /** Checks the rule, then reads the file. */
  public static byte[] readAllBytes(String what, Path file) throws IOException {
    check(what, file);
    return Files.readAllBytes(file);
  }

  /** Checks the rule, then reads the file as UTF-8. */
  public static String readString(String what, Path file) throws IOException {
    check(what, file);
    return Files.readString(file);
  }

  /** The permission bits as chmod takes them, e.g. 0640. */
  public static String octal(Set<PosixFilePermission> permissions) {
    int mode = 0;
    for (PosixFilePermission p : permissions) {
      mode |= 1 << (8 - p.ordinal()); // OWNER_READ is ordinal 0 and bit 0400, ..., OTHERS_EXECUTE
      // ordinal 8 and bit 01
    }
    return String.format("%04o", mode);
  }

  private static List<String> openTo(Set<PosixFilePermission> permissions) {
    List<String> open = new ArrayList<>();
    String group =
        access(
            permissions,
            PosixFilePermission.GROUP_READ,
            PosixFilePermission.GROUP_WRITE,
            PosixFilePermission.GROUP_EXECUTE);
    String others =
        access(
            permissions,
            PosixFilePermission.OTHERS_READ,
            PosixFilePermission.OTHERS_WRITE,
            PosixFilePermission.OTHERS_EXECUTE);
    if (!group.isEmpty()) open.add("its group may " + group + " it");
    if (!others.isEmpty()) open.add("others may " + others + " it");
    return open;
  }

  private static String access(
      Set<PosixFilePermission> permissions,
      PosixFilePermission read,
      PosixFilePermission write,
      PosixFilePermission execute) {
    List<String> may = new ArrayList<>();
    if (permissions.contains(read)) may.add("read");
    if (permissions.contains(write)) may.add("write");
    if (permissions.contains(execute)) may.add("execute");
    return String.join(" and ", may);
  }

  private static String kind(PosixFileAttributes attributes) {
    if (attributes.isDirectory()) return "a directory";
    if (attributes.isSymbolicLink()) return "a symbolic link";
    return "a device, socket or pipe";
  }

  private static long processUid() {
    return new UnixSystem().getUid();
  }

  /**
   * A secret file that breaks the rule; the message names the file and the fix, never its content.
   */
  public static final class Refused extends IOException {
    private static final long serialVersionUID = 1L;

    public Refused(String message) {
      super(message);
    }
  }
}
