package io.etcdrunbooks.api.slack;

import io.micronaut.context.annotation.ConfigurationProperties;
import io.micronaut.context.annotation.Context;
import io.micronaut.core.annotation.Nullable;
import io.micronaut.core.bind.annotation.Bindable;
import io.micronaut.core.convert.format.MapFormat;
import io.micronaut.core.naming.conventions.StringConvention;
import java.net.URI;
import java.util.Map;

/**
 * The Slack slash command ({@code POST /slack/commands}) and buttons ({@code POST
 * /slack/interactions}). Checked when the application starts ({@link Context}), so a wrong role or
 * prefix stops the process at once rather than at the first command.
 *
 * @param signingSecretFile file holding the Slack app's signing secret (mode 0600); empty: every
 *     request is refused
 * @param responseUrlPrefix progress is posted only to response URLs that start with it (so a forged
 *     response_url cannot make this server post anywhere else); it must end with '/'
 * @param progressIntervalSeconds how often a started runbook's progress is read for the channel
 * @param users Slack user id → {role, clusters}; the keys are kept as written (RAW), Slack ids
 *     being upper case
 * @param botTokenFile file holding the app's bot token (mode 0600); set, a runbook's progress is
 *     posted with chat.postMessage in one thread of the command's channel; empty: to the command's
 *     response URL
 * @param apiUrl Slack's Web API, where chat.postMessage is; the bot token is sent only there
 * @param approvalsChannel channel (id or name) where runbooks waiting for approval that were not
 *     started from Slack (the Web UI, the API, Alertmanager, a schedule) get Approve and Cancel
 *     buttons; needs the bot token; empty: only runbooks started from Slack get buttons
 */
@Context
@ConfigurationProperties("runbooks.slack")
public record SlackConfig(
    @Bindable(defaultValue = "") String signingSecretFile,
    @Bindable(defaultValue = "https://hooks.slack.com/") String responseUrlPrefix,
    @Bindable(defaultValue = "5") int progressIntervalSeconds,
    @Nullable
        @MapFormat(
            transformation = MapFormat.MapTransformation.NESTED,
            keyFormat = StringConvention.RAW)
        Map<String, Object> users,
    @Bindable(defaultValue = "") String botTokenFile,
    @Bindable(defaultValue = "https://slack.com/api/") String apiUrl,
    @Bindable(defaultValue = "") String approvalsChannel) {

  private static final java.util.regex.Pattern CHANNEL =
      java.util.regex.Pattern.compile("#?[A-Za-z0-9][A-Za-z0-9._-]{0,79}");

  public SlackConfig {
    signingSecretFile = signingSecretFile == null ? "" : signingSecretFile.strip();
    responseUrlPrefix = responseUrlPrefix == null ? "" : responseUrlPrefix.strip();
    if (!validPrefix(responseUrlPrefix)) {
      throw new IllegalArgumentException(
          "runbooks.slack.response-url-prefix is '"
              + responseUrlPrefix
              + "': it must be an"
              + " http(s) URL with a host that ends with '/', such as https://hooks.slack.com/");
    }
    if (progressIntervalSeconds < 1 || progressIntervalSeconds > 300) {
      throw new IllegalArgumentException(
          "runbooks.slack.progress-interval-seconds must be 1 to 300, got "
              + progressIntervalSeconds);
    }
    botTokenFile = botTokenFile == null ? "" : botTokenFile.strip();
    apiUrl = apiUrl == null || apiUrl.isBlank() ? "https://slack.com/api/" : apiUrl.strip();
    if (!validPrefix(apiUrl)) {
      throw new IllegalArgumentException(
          "runbooks.slack.api-url is '"
              + apiUrl
              + "': it must be an http(s) URL with a host that ends with '/', such as"
              + " https://slack.com/api/");
    }
    users = users == null ? Map.of() : Map.copyOf(users);
    SlackUsers.parse(users);
    approvalsChannel = approvalsChannel == null ? "" : approvalsChannel.strip();
    if (!approvalsChannel.isEmpty() && !CHANNEL.matcher(approvalsChannel).matches()) {
      throw new IllegalArgumentException(
          "runbooks.slack.approvals-channel is '"
              + approvalsChannel
              + "': it must be a channel id such as C0123ABCD or a name such as #etcd-ops");
    }
    if (!approvalsChannel.isEmpty() && botTokenFile.isEmpty()) {
      throw new IllegalArgumentException(
          "runbooks.slack.approvals-channel is set but runbooks.slack.bot-token-file is not: the"
              + " approvals are posted with the bot token (see docs/configuration.md)");
    }
  }

  public SlackUsers slackUsers() {
    return SlackUsers.parse(users);
  }

  private static boolean validPrefix(String prefix) {
    try {
      URI uri = URI.create(prefix);
      return (prefix.startsWith("https://") || prefix.startsWith("http://"))
          && uri.getHost() != null
          && uri.getRawUserInfo() == null
          && prefix.endsWith("/")
          && uri.getRawPath() != null
          && !uri.getRawPath().isEmpty();
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
