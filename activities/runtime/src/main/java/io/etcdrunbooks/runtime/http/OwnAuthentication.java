package io.etcdrunbooks.runtime.http;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A route that does not take API tokens: it checks its caller itself (the Alertmanager webhook's
 * own token, Slack's request signature) or serves nothing secret (health, metrics, the OpenAPI
 * document).
 *
 * <p>A process has one HTTP server, and the API's access filter refuses every route of it that has
 * no rule, the worker's {@code /health} and {@code /metrics} included; so the marker lives here,
 * where the worker can put it on its routes without importing the API.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface OwnAuthentication {
  /** How the route is protected, or why it need not be. */
  String value();
}
