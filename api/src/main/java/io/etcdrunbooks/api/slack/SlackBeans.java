package io.etcdrunbooks.api.slack;

import io.micronaut.context.annotation.Factory;
import jakarta.inject.Singleton;

/** The signing secret of the Slack app, from {@code runbooks.slack.signing-secret-file}. */
@Factory
public class SlackBeans {

  @Singleton
  public SlackSigningSecret slackSigningSecret(SlackConfig config) {
    return new SlackSigningSecret(config.signingSecretFile());
  }
}
