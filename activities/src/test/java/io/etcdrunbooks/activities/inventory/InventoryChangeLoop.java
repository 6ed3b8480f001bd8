package io.etcdrunbooks.activities.inventory;

import io.etcdrunbooks.inventory.InventorySource;
import io.etcdrunbooks.workflows.activities.InventoryActivities.RecordAdditionRequest;
import io.etcdrunbooks.workflows.model.MemberPlacement;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A worker's inventory change path alone, as a process of its own: records {@code count} new
 * members of one cluster through {@link InventoryActivitiesImpl}, as runbooks adding members do. It
 * starts once the {@code go} file exists, so that two such processes change the file together.
 *
 * <p>Arguments: inventory file, cluster, count, go file, second octet of the members' addresses.
 */
public final class InventoryChangeLoop {

  private InventoryChangeLoop() {}

  public static void main(String[] args) throws Exception {
    Path file = Path.of(args[0]);
    String cluster = args[1];
    int count = Integer.parseInt(args[2]);
    Path go = Path.of(args[3]);
    int net = Integer.parseInt(args[4]);
    InventoryActivitiesImpl activities = new InventoryActivitiesImpl(new InventorySource(file));
    System.out.println("ready");
    System.out.flush();
    while (!Files.exists(go)) Thread.onSpinWait();
    for (int i = 1; i <= count; i++) {
      String host = "10." + net + "." + (i / 200) + "." + (i % 200 + 10);
      activities.recordAddition(
          new RecordAdditionRequest(
              cluster,
              new MemberPlacement(
                  cluster + "-m" + i,
                  host,
                  22,
                  "http://" + host + ":2380",
                  "http://" + host + ":2379",
                  "/var/lib/etcd",
                  "/opt/etcd",
                  null)));
    }
    System.exit(0);
  }
}
