package io.etcdrunbooks.api.slack;

import java.net.URI;
import java.util.Optional;

/**
 * The response_url of a command, accepted only under {@code runbooks.slack.response-url-prefix}:
 * the URL comes in the request body, so without the prefix anyone able to sign a request could make
 * this server post to any address (its own network included).
 */
final class SlackResponseUrl {

  private SlackResponseUrl() {}

  /** The URL to post to, or empty when it is missing, malformed or not under the prefix. */
  static Optional<URI> accept(String responseUrl, String prefix) {
    if (responseUrl == null || responseUrl.isBlank() || !responseUrl.startsWith(prefix))
      return Optional.empty();
    try {
      URI uri = new URI(responseUrl);
      URI base = URI.create(prefix);
      boolean sameOrigin =
          base.getScheme().equalsIgnoreCase(uri.getScheme())
              && base.getHost().equalsIgnoreCase(uri.getHost())
              && base.getPort() == uri.getPort()
              && uri.getRawUserInfo() == null;
      return sameOrigin ? Optional.of(uri) : Optional.empty();
    } catch (java.net.URISyntaxException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
