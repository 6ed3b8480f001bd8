package io.etcdrunbooks.activities.etcd;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.ClientBuilder;
import io.etcdrunbooks.inventory.ClusterSpec;
import io.etcdrunbooks.secrets.SecretFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The user and password jetcd authenticates with; the password is never part of a message. */
final class EtcdCredentials {

  private final ByteSequence user;
  private final ByteSequence password;

  private EtcdCredentials(String user, byte[] password) {
    this.user = ByteSequence.from(user, StandardCharsets.UTF_8);
    this.password = ByteSequence.from(password);
  }

  /** Reads the password file of the cluster's auth section, after the secret-file rule. */
  static EtcdCredentials load(ClusterSpec spec) {
    Path file = Path.of(spec.auth().passwordFile());
    String what = "the etcd password file of cluster '" + spec.name() + "' (auth.passwordFile)";
    try {
      SecretFiles.check(what, file);
      String password = Files.readString(file, StandardCharsets.UTF_8).strip();
      if (password.isEmpty()) throw new IllegalArgumentException(what + " " + file + " is empty");
      return new EtcdCredentials(spec.auth().user(), password.getBytes(StandardCharsets.UTF_8));
    } catch (SecretFiles.Refused e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    } catch (IOException e) {
      throw new IllegalArgumentException(
          "cannot read " + what + " " + file + ": " + e.getClass().getSimpleName(), e);
    }
  }

  String user() {
    return user.toString(StandardCharsets.UTF_8);
  }

  /** For etcd's HTTP gateway, which takes the password in a JSON body of its own. */
  String password() {
    return password.toString(StandardCharsets.UTF_8);
  }

  void applyTo(ClientBuilder builder) {
    builder.user(user).password(password);
  }

  @Override
  public String toString() {
    return "EtcdCredentials[user=" + user.toString(StandardCharsets.UTF_8) + ", password=***]";
  }
}
