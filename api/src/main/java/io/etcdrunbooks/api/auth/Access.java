package io.etcdrunbooks.api.auth;

import io.etcdrunbooks.runtime.http.OwnAuthentication;
import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * What a route lets its caller do. {@link ApiAuthFilter} decides from the route Micronaut matched
 * and its path variables, never from the request path, so a trailing slash, an encoded character or
 * a doubled slash cannot reach a route past its rule. A route with neither this nor {@link
 * OwnAuthentication} is refused to everyone.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Access {
  ApiAction value();
}
