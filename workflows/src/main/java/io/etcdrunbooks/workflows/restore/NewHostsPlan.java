package io.etcdrunbooks.workflows.restore;

import io.etcdrunbooks.workflows.model.MemberPlacement;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The new hosts a restore goes onto ({@link RestoreRequest#newMembers()}), read before anything on
 * a host is: every problem of the list itself, and each placement completed with the paths of the
 * inventory member it stands for.
 */
final class NewHostsPlan {

  private NewHostsPlan() {}

  /** Every problem of the list, against the inventory's members; empty when it can be used. */
  static List<String> problems(List<MemberPlacement> asked, List<MemberPlacement> inventory) {
    List<String> problems = new ArrayList<>();
    Set<String> names = new HashSet<>();
    Set<String> urls = new HashSet<>();
    Set<String> oldUrls = new HashSet<>();
    inventory.forEach(
        m -> {
          oldUrls.add(m.peerUrl());
          oldUrls.add(m.clientUrl());
        });
    for (int i = 0; i < asked.size(); i++) {
      MemberPlacement m = asked.get(i);
      if (m == null) {
        problems.add("newMembers[" + i + "] is empty");
        continue;
      }
      String name = blank(m.name()) ? "newMembers[" + i + "]" : "new member " + m.name();
      if (blank(m.name())) problems.add(name + " has no name");
      else if (!names.add(m.name())) problems.add(name + " is named twice");
      if (blank(m.host())) problems.add(name + " has no host");
      if (m.sshPort() < 0 || m.sshPort() > 65535)
        problems.add(name + " has SSH port " + m.sshPort());
      for (String[] url : new String[][] {{"peerUrl", m.peerUrl()}, {"clientUrl", m.clientUrl()}}) {
        String problem = urlProblem(url[1]);
        if (problem != null) {
          problems.add("%s: %s %s".formatted(name, url[0], problem));
        } else if (!urls.add(url[1])) {
          problems.add("%s: %s %s is given twice".formatted(name, url[0], url[1]));
        } else if (oldUrls.contains(url[1])) {
          problems.add(
              ("%s: %s %s is an inventory member's: a restore onto new hosts leaves the old"
                      + " members running, so the new ones need addresses of their own (restore"
                      + " in place without newMembers instead)")
                  .formatted(name, url[0], url[1]));
        }
      }
    }
    if (inventory.isEmpty()) problems.add("the inventory names no member to take paths from");
    return problems;
  }

  /** Said in the plan, not refused: an even count tolerates no more failures than one fewer. */
  static String sizeWarning(List<MemberPlacement> members) {
    if (members.size() % 2 != 0) return "";
    return ("warning: %d new members; an even count tolerates no more failed members than %d,"
            + " so run an odd number")
        .formatted(members.size(), members.size() - 1);
  }

  /**
   * Each placement with the paths it left empty taken from the inventory member at its position (or
   * the first, for a larger new cluster).
   */
  static List<MemberPlacement> completed(
      List<MemberPlacement> asked, List<MemberPlacement> inventory) {
    List<MemberPlacement> done = new ArrayList<>();
    for (int i = 0; i < asked.size(); i++) {
      MemberPlacement m = asked.get(i);
      MemberPlacement from = inventory.get(i < inventory.size() ? i : 0);
      done.add(
          new MemberPlacement(
              m.name(),
              m.host(),
              m.sshPort(),
              m.peerUrl(),
              m.clientUrl(),
              or(m.dataDir(), from.dataDir()),
              or(m.installDir(), from.installDir()),
              or(m.serviceDir(), from.serviceDir())));
    }
    return done;
  }

  private static String urlProblem(String url) {
    if (blank(url)) return "is missing";
    try {
      URI uri = new URI(url);
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()))
        return url + " is not http:// or https://";
      if (uri.getHost() == null || uri.getPort() <= 0) return url + " has no host and port";
      return null;
    } catch (URISyntaxException e) {
      return url + " is not a URL";
    }
  }

  private static String or(String value, String otherwise) {
    return blank(value) ? otherwise : value;
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
