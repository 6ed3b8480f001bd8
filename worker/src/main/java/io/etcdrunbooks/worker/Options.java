package io.etcdrunbooks.worker;

import java.util.LinkedHashMap;
import java.util.Map;

/** {@code --name=value} and {@code --name value} command-line options. */
final class Options {

  private Options() {}

  static Map<String, String> parse(String[] args) {
    Map<String, String> options = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        throw new IllegalArgumentException(
            "unexpected argument '" + arg + "': options look like --name=value");
      }
      int eq = arg.indexOf('=');
      if (eq > 0) {
        options.put(arg.substring(2, eq), arg.substring(eq + 1));
      } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
        options.put(arg.substring(2), args[++i]);
      } else {
        options.put(arg.substring(2), "true");
      }
    }
    return options;
  }
}
