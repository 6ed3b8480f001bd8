package io.etcdrunbooks.api.slack;

import io.etcdrunbooks.api.auth.Caller;
import io.etcdrunbooks.api.auth.Role;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The Slack users that may use the slash command ({@code runbooks.slack.users}): each Slack user id
 * with a role and, optionally, the clusters ({@code *} globs) it may act on, as API tokens have.
 * Nobody else may do anything.
 */
public final class SlackUsers {

  /** One mapped Slack user. */
  public record SlackUser(String id, Role role, List<String> clusters) {

    /**
     * The caller a command of this user acts as; {@code userName} is Slack's user_name, for the
     * audit log and memos.
     */
    public Caller asCaller(String userName) {
      return new Caller(label(id, userName), role, clusters);
    }
  }

  private static final Set<String> KEYS = Set.of("role", "clusters");

  private final Map<String, SlackUser> byId;

  private SlackUsers(Map<String, SlackUser> byId) {
    this.byId = Map.copyOf(byId);
  }

  public static SlackUsers none() {
    return new SlackUsers(Map.of());
  }

  /**
   * Reads {@code runbooks.slack.users} as bound from the configuration: user id → {role, clusters},
   * where clusters is a list or a comma-separated string.
   *
   * @throws IllegalArgumentException naming the key that is wrong
   */
  public static SlackUsers parse(Map<String, Object> users) {
    Map<String, SlackUser> byId = new LinkedHashMap<>();
    if (users == null) return new SlackUsers(byId);
    users.forEach(
        (id, value) -> {
          String key = "runbooks.slack.users." + id;
          if (!id.matches("[A-Za-z0-9]{2,32}")) {
            throw new IllegalArgumentException(
                key
                    + ": a Slack user id is letters and digits, such as U024BE7LH (profile >"
                    + " ... > Copy member ID)");
          }
          if (!(value instanceof Map<?, ?> entry)) {
            throw new IllegalArgumentException(
                key + " must hold role (viewer, operator or admin) and optionally clusters");
          }
          for (Object k : entry.keySet()) {
            if (!KEYS.contains(String.valueOf(k))) {
              throw new IllegalArgumentException(
                  key + "." + k + " is not a setting: use role and clusters");
            }
          }
          Role role =
              Role.parse(
                  key + ".role",
                  entry.get("role") == null ? null : String.valueOf(entry.get("role")));
          String normalized = id.toUpperCase(Locale.ROOT);
          if (byId.containsKey(normalized))
            throw new IllegalArgumentException(key + " is listed twice");
          byId.put(normalized, new SlackUser(normalized, role, clusters(entry.get("clusters"))));
        });
    return new SlackUsers(byId);
  }

  /**
   * The mapped user with this Slack user id (Slack ids are upper case; the lookup ignores case).
   */
  public Optional<SlackUser> find(String userId) {
    return userId == null
        ? Optional.empty()
        : Optional.ofNullable(byId.get(userId.toUpperCase(Locale.ROOT)));
  }

  public int size() {
    return byId.size();
  }

  /**
   * How a Slack user is named in the audit log and in a runbook's memo: {@code
   * slack:<user_name>/<user id>}.
   */
  static String label(String userId, String userName) {
    String name = userName == null ? "" : userName.replaceAll("[^A-Za-z0-9._-]", "");
    return "slack:"
        + (name.isEmpty() ? "" : name.substring(0, Math.min(name.length(), 40)) + "/")
        + userId;
  }

  private static List<String> clusters(Object value) {
    if (value == null) return List.of();
    Collection<?> items =
        value instanceof Collection<?> c ? c : Arrays.asList(String.valueOf(value).split(","));
    return items.stream()
        .map(String::valueOf)
        .map(String::strip)
        .filter(s -> !s.isEmpty())
        .toList();
  }
}
