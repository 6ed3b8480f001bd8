package io.etcdrunbooks.worker;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** What an HTTP endpoint answers: a stand-in's health URL, a member's client URL. */
final class HttpProbe {

  private HttpProbe() {}

  /** The status code a GET of {@code url} is answered with. */
  static int status(String url) throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  /** Whether a member's client URL answers {@code /version} over plain http within 2 s. */
  static boolean answersPlainHttp(String url) {
    try {
      return HttpClient.newBuilder()
              .connectTimeout(Duration.ofSeconds(2))
              .build()
              .send(
                  HttpRequest.newBuilder(URI.create(url + "/version"))
                      .timeout(Duration.ofSeconds(2))
                      .build(),
                  HttpResponse.BodyHandlers.discarding())
              .statusCode()
          == 200;
    } catch (Exception e) {
      return false;
    }
  }
}
