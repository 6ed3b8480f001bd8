package io.etcdrunbooks.api.auth;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A route that does not take API tokens: it checks its caller itself (the Alertmanager webhook's own token, Slack's
 * request signature) or serves nothing secret (health, metrics, the OpenAPI document).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface OwnAuthentication {
  /** How the route is protected, or why it need not be. */
  String value();
}
