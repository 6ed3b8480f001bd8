package io.etcdrunbooks.activities.release;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The tags an image repository serves, read over the registry's HTTP API ({@code GET
 * /v2/<name>/tags/list}, following its {@code Link} pages), as anyone may: an anonymous bearer
 * token is fetched when the registry asks for one. A loopback registry is spoken to over plain http
 * (as containerd and Docker allow for loopback), every other over https.
 */
final class ImageTags {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern NEXT = Pattern.compile("<([^>]+)>\\s*;\\s*rel=\"?next\"?");
  private static final Pattern PARAM = Pattern.compile("(\\w+)=\"([^\"]*)\"");
  private static final int MAX_PAGES = 50;

  private final HttpClient http =
      HttpClient.newBuilder()
          .connectTimeout(Duration.ofSeconds(10))
          .followRedirects(HttpClient.Redirect.NORMAL)
          .build();

  /**
   * An image name split the way registries read it.
   *
   * @param registry host and optional port ({@code registry.k8s.io}, {@code 127.0.0.1:5000})
   * @param repository the repository path in that registry ({@code etcd}, {@code mirror/etcd})
   * @param tagTemplate the tag, with {@code {version}} ({@code {version}-0})
   */
  record ImageName(String registry, String repository, String tagTemplate) {

    /** {@code registry.k8s.io/etcd:{version}-0}; refuses a name without a registry host or tag. */
    static ImageName parse(String imageTemplate) {
      int slash = imageTemplate.indexOf('/');
      int colon = imageTemplate.lastIndexOf(':');
      if (slash <= 0 || colon < imageTemplate.lastIndexOf('/'))
        throw new IllegalArgumentException(
            "the image '"
                + imageTemplate
                + "' does not name a registry host and a tag (host/path:tag); set"
                + " service.imageRepository and service.image in the inventory");
      return new ImageName(
          imageTemplate.substring(0, slash),
          imageTemplate.substring(slash + 1, colon),
          imageTemplate.substring(colon + 1));
    }

    String tagOf(String version) {
      return tagTemplate.replace("{version}", version);
    }

    String describe() {
      return registry + "/" + repository;
    }

    URI tagsList() {
      String host = registry.replaceFirst(":\\d+$", "");
      boolean loopback =
          host.equals("localhost") || host.startsWith("127.") || host.equals("[::1]");
      return URI.create(
          (loopback ? "http" : "https") + "://" + registry + "/v2/" + repository + "/tags/list");
    }
  }

  /** Every tag of the repository; fails naming the repository when the registry does not answer. */
  List<String> tags(ImageName image) {
    List<String> tags = new ArrayList<>();
    URI page = image.tagsList();
    String token = null;
    for (int n = 0; page != null && n < MAX_PAGES; n++) {
      HttpResponse<String> response = get(image, page, token);
      if (response.statusCode() == 401 && token == null) {
        token = anonymousToken(image, response).orElse(null);
        if (token != null) response = get(image, page, token);
      }
      if (response.statusCode() != 200)
        throw new IllegalStateException(
            "the image repository "
                + image.describe()
                + " answered HTTP "
                + response.statusCode()
                + " to "
                + page
                + "; check service.imageRepository in the inventory and that the worker reaches"
                + " the registry");
      try {
        JSON.readTree(response.body()).path("tags").forEach(t -> tags.add(t.asText()));
      } catch (IOException e) {
        throw new IllegalStateException(
            "the image repository " + image.describe() + " sent no tag list: " + e.getMessage());
      }
      page = next(page, response);
    }
    return tags;
  }

  private HttpResponse<String> get(ImageName image, URI uri, String token) {
    HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET();
    if (token != null) request.header("Authorization", "Bearer " + token);
    try {
      return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot read the tags of the image repository "
              + image.describe()
              + " at "
              + uri
              + ": "
              + e
              + "; check service.imageRepository in the inventory and that the worker reaches"
              + " the registry");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted reading the tags of " + image.describe(), e);
    }
  }

  /** The token a registry's {@code WWW-Authenticate: Bearer realm=...} challenge hands anyone. */
  private Optional<String> anonymousToken(ImageName image, HttpResponse<String> challenge) {
    String header = challenge.headers().firstValue("WWW-Authenticate").orElse("");
    if (!header.regionMatches(true, 0, "Bearer ", 0, 7)) return Optional.empty();
    Map<String, String> params = new LinkedHashMap<>();
    Matcher m = PARAM.matcher(header);
    while (m.find()) params.put(m.group(1), m.group(2));
    String realm = params.remove("realm");
    if (realm == null) return Optional.empty();
    StringBuilder uri = new StringBuilder(realm);
    char sep = realm.contains("?") ? '&' : '?';
    for (Map.Entry<String, String> p : params.entrySet()) {
      uri.append(sep)
          .append(p.getKey())
          .append('=')
          .append(
              java.net.URLEncoder.encode(p.getValue(), java.nio.charset.StandardCharsets.UTF_8));
      sep = '&';
    }
    HttpResponse<String> response = get(image, URI.create(uri.toString()), null);
    if (response.statusCode() != 200) return Optional.empty();
    try {
      JsonNode body = JSON.readTree(response.body());
      String token = body.path("token").asText(body.path("access_token").asText(""));
      return token.isEmpty() ? Optional.empty() : Optional.of(token);
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  private static URI next(URI page, HttpResponse<String> response) {
    return response
        .headers()
        .firstValue("Link")
        .map(NEXT::matcher)
        .filter(Matcher::find)
        .map(m -> page.resolve(m.group(1)))
        .orElse(null);
  }
}
