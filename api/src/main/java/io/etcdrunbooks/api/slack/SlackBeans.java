package io.etcdrunbooks.api.slack;

import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

/**
 * The signing secret and the bot token of the Slack app, from {@code
 * runbooks.slack.signing-secret-file} and {@code runbooks.slack.bot-token-file}.
 */
@Factory
public class SlackBeans {

  @Singleton
  public SlackSigningSecret slackSigningSecret(SlackConfig config) {
    return new SlackSigningSecret(config.signingSecretFile());
  }

  @Singleton
  public SlackBotToken slackBotToken(SlackConfig config) {
    return new SlackBotToken(config.botTokenFile());
  }
}
