package io.etcdrunbooks.worker;

import static org.assertj.core.api.Assertions.assertThat;

import io.etcdrunbooks.activities.host.HostActivitiesImpl;
import io.etcdrunbooks.activities.ssh.SshConnector;
import io.etcdrunbooks.activities.targets.ClusterTargets;
import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.inventory.MemberSpec;
import io.etcdrunbooks.testkit.Machines;
import io.etcdrunbooks.testkit.RealEtcd;
import io.etcdrunbooks.workflows.activities.HostActivities.HostAccessRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runbooks' SSH client (MINA SSHD) against OpenSSH servers as they come, on systemd machines:
 * hashed known_hosts entries, hosts known by their RSA key only, and a host key that changed,
 * refused naming the host and both fingerprints; the runbooks' non-root user's sudo rules, a
 * missing one named with the line to add. Each check is the access check every changing runbook
 * makes before it touches anything.
 */
@RealEtcd
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class MachinesSshTest {

  @TempDir Path dir;

  @Test
  void hashedEntriesAndHostsKnownByTheirRsaKeyOnlyLetTheRunbooksLogIn() throws Exception {
    try (Machines machines =
            Machines.start(
                dir.resolve("machines"), "prod-1", 3, "3.5.30", SandboxRunbooks.releases());
        SshConnector ssh = new SshConnector()) {
      Path knownHosts = Path.of(machines.cluster().ssh().knownHostsFile());
      run("ssh-keygen", "-q", "-H", "-f", knownHosts.toString());
      assertThat(Files.readString(knownHosts)).startsWith("|1|").doesNotContain("127.77.");
      assertThat(problems(machines, ssh)).as("hashed entries").isEmpty();

      List<String> rsaOnly = new ArrayList<>();
      for (MemberSpec m : machines.cluster().members()) {
        String key =
            Files.readString(machines.hostRoot(m.name()).resolve("etc/ssh/ssh_host_rsa_key.pub"));
        rsaOnly.add(m.host() + " " + key.strip().replaceAll(" [^ ]+$", ""));
      }
      Files.writeString(knownHosts, String.join("\n", rsaOnly) + "\n");
      try (SshConnector fresh = new SshConnector()) {
        assertThat(problems(machines, fresh)).as("RSA host keys only").isEmpty();
      }
    }
  }

  @Test
  void aHostKeyThatChangedAndAMissingSudoRuleAreRefusedNamingHostFingerprintsAndRule()
      throws Exception {
    try (Machines machines =
            Machines.start(
                dir.resolve("machines"), "prod-1", 3, "3.5.30", SandboxRunbooks.releases());
        SshConnector ssh = new SshConnector()) {
      assertThat(problems(machines, ssh)).isEmpty();
      MemberSpec m2 = machines.cluster().member("m2");
      Path hostKey = machines.hostRoot("m2").resolve("etc/ssh/ssh_host_ed25519_key");
      String before = fingerprint(hostKey + ".pub");
      Files.delete(hostKey);
      Files.delete(Path.of(hostKey + ".pub"));
      run("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", hostKey.toString());
      String after = fingerprint(hostKey + ".pub");
      // OpenSSH's sshd reads its host keys again for every connection: no restart

      try (SshConnector fresh = new SshConnector()) {
        List<String> problems = problems(machines, fresh);
        assertThat(problems).hasSize(1);
        assertThat(problems.get(0))
            .contains(m2.host(), "does not match", before, after)
            .doesNotContain("m1", "m3");
      }

      // a sudo rule the runbooks need taken away on m3: named with the command and the line
      machines.rootShell("m3", "sed -i '/systemctl stop/d' /etc/sudoers.d/etcd-runbooks");
      try (SshConnector fresh = new SshConnector()) {
        List<String> problems = problems(machines, fresh);
        assertThat(problems).hasSize(2);
        assertThat(problems.get(1))
            .startsWith("member m3 (" + machines.cluster().member("m3").host() + ":22)")
            .contains(
                "sudo does not let runbooks run '/usr/bin/systemctl stop etcd'",
                "add 'runbooks ALL=(root) NOPASSWD: /usr/bin/systemctl stop etcd' to"
                    + " /etc/sudoers.d/etcd-runbooks")
            .doesNotContain("systemctl start");
      }
    }
  }

  private static List<String> problems(Machines machines, SshConnector ssh) {
    HostActivitiesImpl host =
        new HostActivitiesImpl(
            new ClusterTargets(new InventorySource(machines.inventoryFile()), ssh),
            SandboxRunbooks.releases());
    return host.checkAccess(new HostAccessRequest("prod-1", List.of(), false));
  }

  private static String fingerprint(String publicKeyFile) throws Exception {
    // "256 SHA256:abc... comment (ED25519)"
    return run("ssh-keygen", "-l", "-E", "sha256", "-f", publicKeyFile).split(" ")[1];
  }

  private static String run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out =
        new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(String.join(" ", command) + ": " + out).isZero();
    return out;
  }
}
