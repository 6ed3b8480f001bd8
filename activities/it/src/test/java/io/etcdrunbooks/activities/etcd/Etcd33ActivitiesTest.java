package io.etcdrunbooks.activities.etcd;

import io.etcdrunbooks.testkit.RealEtcd;

@RealEtcd
class Etcd33ActivitiesTest extends EtcdActivitiesContract {

  @Override
  String version() {
    return "3.3.25";
  }
}
