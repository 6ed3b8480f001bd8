package io.etcdrunbooks.api.auth;

import io.micronaut.context.annotation.Factory;
import io.micronaut.context.annotation.Value;
import jakarta.inject.Singleton;

/** The API's tokens, from {@code runbooks.api.tokens-file}. */
@Factory
public class ApiAuthBeans {

  @Singleton
  public ApiTokens apiTokens(@Value("${runbooks.api.tokens-file:}") String tokensFile) {
    return new ApiTokens(tokensFile);
  }
}
