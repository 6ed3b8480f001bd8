package io.etcdrunbooks.inventory;

/**
 * How members' etcd processes are run.
 *
 * @param kind {@code plain}: a process started with nohup from {@code serviceDir/etcd.env}, tracked by a pid file;
 *     {@code systemd}: a systemd unit whose ExecStart runs {@code installDir/current/etcd}
 * @param unit systemd unit name (default etcd)
 */
public record ServiceSpec(String kind, String unit) {

  public static final String PLAIN = "plain";
  public static final String SYSTEMD = "systemd";
}
