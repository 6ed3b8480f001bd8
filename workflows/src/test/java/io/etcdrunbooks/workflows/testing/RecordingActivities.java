package io.etcdrunbooks.workflows.testing;

import io.etcdrunbooks.workflows.activities.ApiServerActivities;
import io.etcdrunbooks.workflows.activities.BackupActivities;
import io.etcdrunbooks.workflows.activities.DowngradeActivities;
import io.etcdrunbooks.workflows.activities.DrillActivities;
import io.etcdrunbooks.workflows.activities.EtcdActivities;
import io.etcdrunbooks.workflows.activities.HostActivities;
import io.etcdrunbooks.workflows.activities.InventoryActivities;
import io.etcdrunbooks.workflows.activities.KubernetesActivities;
import io.etcdrunbooks.workflows.activities.MaintenanceActivities;
import io.etcdrunbooks.workflows.activities.MembershipActivities;
import io.etcdrunbooks.workflows.activities.MigrationActivities;
import io.etcdrunbooks.workflows.activities.NewMemberActivities;
import io.etcdrunbooks.workflows.activities.RecoveryActivities;
import io.etcdrunbooks.workflows.activities.ReleaseActivities;
import io.etcdrunbooks.workflows.activities.RestoreActivities;
import io.etcdrunbooks.workflows.activities.TlsActivities;
import io.temporal.failure.ApplicationFailure;
import io.temporal.worker.Worker;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Every activity interface the runbooks use, as a stand-in that records each call
 * ("EtcdActivities.discover") and hands it to a fake when one implements that interface; a call no
 * fake answers fails, non-retryably, as NotStubbed. The Kubernetes API, unless a fake answers it,
 * is that of a cluster without a kubeconfig ({@link FakeKubernetes}).
 */
public final class RecordingActivities {

  public static final String NOT_STUBBED = "NotStubbed";

  private static final List<Class<?>> INTERFACES =
      List.of(
          EtcdActivities.class,
          HostActivities.class,
          ReleaseActivities.class,
          BackupActivities.class,
          MembershipActivities.class,
          NewMemberActivities.class,
          InventoryActivities.class,
          ApiServerActivities.class,
          RestoreActivities.class,
          MigrationActivities.class,
          TlsActivities.class,
          MaintenanceActivities.class,
          RecoveryActivities.class,
          KubernetesActivities.class,
          DowngradeActivities.class,
          DrillActivities.class);

  private final List<String> calls = new CopyOnWriteArrayList<>();
  private final List<Object> fakes;

  /**
   * @param fakes objects answering the interfaces they implement
   */
  public RecordingActivities(Object... fakes) {
    this.fakes = List.of(fakes);
  }

  /** Registers a recording stand-in for every activity interface on the worker. */
  public void registerOn(Worker worker) {
    List<Object> standIns = new ArrayList<>();
    for (Class<?> type : INTERFACES) standIns.add(standIn(type));
    worker.registerActivitiesImplementations(standIns.toArray());
  }

  /** The calls so far, in order: "EtcdActivities.discover", ... */
  public List<String> calls() {
    return List.copyOf(calls);
  }

  private Object standIn(Class<?> type) {
    Object fake =
        fakes.stream()
            .filter(type::isInstance)
            .findFirst()
            .orElse(type == KubernetesActivities.class ? new FakeKubernetes() : null);
    return Proxy.newProxyInstance(
        type.getClassLoader(),
        new Class<?>[] {type},
        (proxy, method, args) -> {
          if (method.getDeclaringClass() == Object.class) {
            return switch (method.getName()) {
              case "toString" -> "recording " + type.getSimpleName();
              case "hashCode" -> System.identityHashCode(proxy);
              default -> proxy == args[0];
            };
          }
          String name = type.getSimpleName() + "." + method.getName();
          calls.add(name);
          if (fake == null) {
            throw ApplicationFailure.newNonRetryableFailure(
                name + " has no fake in this test", NOT_STUBBED);
          }
          try {
            return method.invoke(fake, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }
}
